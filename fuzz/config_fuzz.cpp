// File: config_fuzz.cpp
// Fuzz target: the TOML config loader (syntax errors and every validation path must come back as errors).
#include <icsbridge/config.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    using namespace icsbridge;
    std::string_view text(reinterpret_cast<char const*>(data), size);
    EnvLookup env = [](std::string const& name) -> std::optional<std::string> {
        if (name == "EVENTS_TOKEN" || name == "JOBS_API_KEY")
            return std::string("fuzz-secret");
        return std::nullopt;
    };
    auto cfg = parse_config(text, "fuzz.toml", env);
    if (!cfg) {
        // Every config error names the file first, so a user knows where to look.
        if (cfg.error().message.rfind("fuzz.toml:", 0) != 0)
            __builtin_trap();
        return 0;
    }
    for (auto const& f : cfg->feeds)
        (void)feed_url(*cfg, f);
    return 0;
}

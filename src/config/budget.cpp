// File: budget.cpp
// Call budgets as written in the config ("2000/h", "100/15m"): the `budget` of a source and the `rate` of a
// push target.
#include <icsbridge/config.hpp>
#include <icsbridge/duration.hpp>

#include <string>

namespace icsbridge {

std::optional<Budget> parse_budget(std::string_view text) {
    auto const slash = text.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash > 9)
        return std::nullopt;
    std::size_t calls = 0;
    for (char c : text.substr(0, slash)) {
        if (c < '0' || c > '9')
            return std::nullopt;
        calls = calls * 10 + static_cast<std::size_t>(c - '0');
    }
    std::string_view unit = text.substr(slash + 1);
    // A bare unit is one of it: "2000/h" is "2000/1h".
    std::string const spelled = unit.size() == 1 ? "1" + std::string(unit) : std::string(unit);
    auto period = parse_duration(spelled);
    if (calls == 0 || !period)
        return std::nullopt;
    return Budget{calls, *period};
}

} // namespace icsbridge

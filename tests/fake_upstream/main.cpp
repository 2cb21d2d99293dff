// File: main.cpp
// icsbridge-fake-upstream: the fake upstream as a process, for the demo, the benchmarks and shell tests.
// Prints "listening on http://127.0.0.1:PORT" once ready and stops cleanly on SIGINT/SIGTERM.
#include "fake_upstream/fake_upstream.hpp"

#include <csignal>
#include <cstring>
#include <iostream>
#include <string>

namespace {

constexpr char const* usage =
    "usage: icsbridge-fake-upstream [--port N] [--data DIR] [--events-token T] [--jobs-api-key K]\n"
    "                               [--latency-ms N] [--page-size N] [--ignore-expand] [--generate-events "
    "N]\n"
    "                               [--threads N] [--fault KIND] [--lifecycle] [--description-bytes N]\n"
    "                               [--page-numbers accept|refuse|ignore]\n"
    "KIND: latency status500 status503 status429 hang reset truncate malformed_json\n"
    "Control: POST /__control/fault?kind=KIND&latency_ms=N&retry_after=S&count=N, POST "
    "/__control/reload?dir=PATH,\n"
    "         GET /__control/requests, POST /__control/clear_requests, POST /__control/ignore_expand?on=1,\n"
    "         POST /__control/paging?page_numbers=accept|refuse|ignore&shift_after=K&add=A&remove=R,\n"
    "         POST /__control/send_hook?to=URL&action=event.updated&event=ID (sends the service's webhook)\n";

int fail(std::string const& msg) {
    std::cerr << "icsbridge-fake-upstream: " << msg << "\n" << usage;
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    using icsbridge::test::Fault;
    icsbridge::test::FakeUpstreamOptions options;
    Fault fault;
    try {
        for (int i = 1; i < argc; ++i) {
            std::string const arg = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc)
                    throw std::invalid_argument(arg + " needs a value");
                return argv[++i];
            };
            if (arg == "--help" || arg == "-h") {
                std::cout << usage;
                return 0;
            } else if (arg == "--port")
                options.port = static_cast<unsigned short>(std::stoi(value()));
            else if (arg == "--data")
                options.data_dir = value();
            else if (arg == "--events-token")
                options.events_token = value();
            else if (arg == "--jobs-api-key")
                options.jobs_api_key = value();
            else if (arg == "--latency-ms")
                fault.delay = std::chrono::milliseconds(std::stoi(value()));
            else if (arg == "--page-size")
                options.events_page_size = std::stoi(value());
            else if (arg == "--ignore-expand")
                options.ignore_expand = true;
            else if (arg == "--generate-events")
                options.generate_events = std::stoi(value());
            else if (arg == "--description-bytes")
                options.description_bytes = std::stoi(value());
            else if (arg == "--page-numbers") {
                auto mode = icsbridge::test::fake::parse_page_numbers(value());
                if (!mode)
                    return fail("--page-numbers is accept, refuse or ignore");
                options.page_numbers = *mode;
            } else if (arg == "--lifecycle")
                options.lifecycle = true;
            else if (arg == "--threads")
                options.threads = std::stoi(value());
            else if (arg == "--fault") {
                auto kind = icsbridge::test::parse_fault_kind(value());
                if (!kind)
                    return fail("unknown fault kind");
                fault.kind = *kind;
            } else
                return fail("unknown argument " + arg);
        }
    } catch (std::exception const& e) {
        return fail(e.what());
    }
    if (fault.kind == Fault::none && fault.delay.count() > 0)
        fault.kind = Fault::latency;

    // Block the stop signals before any thread starts, so only sigwait() below receives them.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

    try {
        icsbridge::test::FakeUpstream server(options);
        server.set_fault(fault);
        std::cout << "listening on " << server.base_url() << std::endl;
        int sig = 0;
        sigwait(&stop_signals, &sig);
    } catch (std::exception const& e) {
        std::cerr << "icsbridge-fake-upstream: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

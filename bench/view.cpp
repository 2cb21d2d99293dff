// File: view.cpp (bench)
// First-build cost of subscriber views of one calendar (e.g. the 10,000-event feed bench-serve.sh
// exports): index + view + SHA-256 ETag + gzip through a fresh ViewCache, median of 7 runs per view,
// and the cost of a cached lookup.
//
//   icsbridge-bench-view FILE.ics
#include "views/view_cache.hpp"

#include <boost/url/parse.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

using namespace icsbridge;
using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: icsbridge-bench-view FILE.ics\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    auto const now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    auto snap = make_snapshot(s.str(), 0, now, now, true);
    auto const today = std::chrono::floor<std::chrono::days>(now);

    std::vector<double> index_ms;
    for (int i = 0; i < 7; ++i) {
        auto t0 = clock_type::now();
        auto idx = views::index_calendar(snap->body);
        index_ms.push_back(ms_since(t0));
        if (!idx) {
            std::fprintf(stderr, "%s is not a calendar icsbridge can index\n", argv[1]);
            return 1;
        }
    }
    std::printf("%s: %zu bytes; index alone: %.1f ms\n", argv[1], snap->body.size(), median(index_ms));
    std::printf("%-36s %8s %10s %14s %12s\n", "view", "items", "bytes", "first build ms", "cached us");
    for (std::string query :
         {"alarm=none&days=30", "alarm=none", "alarm=30m", "days=30", "category=music", "detail=busy"}) {
        std::string const target = "/feeds/big.ics?" + query;
        auto params = views::parse_view_params(boost::urls::parse_origin_form(target)->params(), today);
        std::vector<double> first, cached;
        std::shared_ptr<Snapshot const> view;
        for (int i = 0; i < 7; ++i) {
            ViewCache cache; // fresh: the index and the view are built again
            auto t0 = clock_type::now();
            view = *cache.get("big", snap, *params, true);
            first.push_back(ms_since(t0));
            t0 = clock_type::now();
            for (int k = 0; k < 1000; ++k)
                (void)cache.get("big", snap, *params, true);
            cached.push_back(ms_since(t0)); // 1000 lookups: ms per 1000 = us per lookup
        }
        std::printf(
            "%-36s %8zu %10zu %14.1f %12.2f\n",
            query.c_str(),
            view->items,
            view->body.size(),
            median(first),
            median(cached)
        );
    }
    return 0;
}

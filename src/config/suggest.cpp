// File: suggest.cpp
// Edit distance for "did you mean" hints.
#include "config/suggest.hpp"

#include <algorithm>

namespace icsbridge {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t const up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

} // namespace

std::string closest_match(std::string_view word, std::vector<std::string_view> const& candidates) {
    std::string_view best;
    std::size_t best_d = 0;
    for (auto c : candidates) {
        std::size_t const d = edit_distance(word, c);
        if (best.empty() || d < best_d) {
            best = c;
            best_d = d;
        }
    }
    // Short words collide easily ("eb" vs "db"), so allow less slack for them.
    std::size_t const limit = word.size() <= 4 ? 1 : 2;
    return best_d <= limit ? std::string(best) : std::string();
}

} // namespace icsbridge

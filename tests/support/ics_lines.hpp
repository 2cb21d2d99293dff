// File: ics_lines.hpp
// Reading .ics text in tests: content lines with folding undone, one component by UID, one property.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace icsbridge::test {

// Content lines with folding undone.
inline std::vector<std::string> unfold(std::string const& ics) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < ics.size()) {
        std::size_t end = ics.find("\r\n", pos);
        if (end == std::string::npos)
            end = ics.size();
        std::string line = ics.substr(pos, end - pos);
        if (!line.empty() && (line[0] == ' ' || line[0] == '\t') && !out.empty())
            out.back() += line.substr(1);
        else
            out.push_back(line);
        pos = end + 2;
    }
    return out;
}

// The lines of the component whose UID is `uid` (from its BEGIN to its END).
inline std::vector<std::string> component(std::string const& ics, std::string const& uid) {
    auto const lines = unfold(ics);
    std::vector<std::string> current;
    for (auto const& l : lines) {
        if (l == "BEGIN:VEVENT" || l == "BEGIN:VTODO")
            current.clear();
        current.push_back(l);
        if ((l == "END:VEVENT" || l == "END:VTODO") &&
            std::find(current.begin(), current.end(), "UID:" + uid) != current.end())
            return current;
    }
    return {};
}

inline std::string property(std::vector<std::string> const& comp, std::string const& name_with_params) {
    for (auto const& l : comp)
        if (l.starts_with(name_with_params + ":"))
            return l.substr(name_with_params.size() + 1);
    return "<missing " + name_with_params + ">";
}

inline bool has_line(std::vector<std::string> const& comp, std::string const& line) {
    return std::find(comp.begin(), comp.end(), line) != comp.end();
}

} // namespace icsbridge::test

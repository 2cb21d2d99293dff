// File: categories.cpp
// The events service's category table, as the seed documents it.
#include <icsbridge/model.hpp>

namespace icsbridge {

std::vector<Category> const& event_categories() {
    static std::vector<Category> const table = {
        {"101", "Business"},
        {"102", "Science & Technology"},
        {"103", "Music"},
        {"104", "Film & Media"},
        {"105", "Arts"},
        {"108", "Sports & Fitness"},
        {"109", "Health"},
        {"110", "Food & Drink"},
    };
    return table;
}

std::string event_category_name(std::string const& id) {
    for (auto const& c : event_categories())
        if (c.id == id)
            return c.name;
    return {};
}

} // namespace icsbridge

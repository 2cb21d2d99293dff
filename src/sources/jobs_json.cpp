// File: jobs_json.cpp
// Reads job board JSON (Authentic Jobs envelopes, 2009 to 2019 shapes) into JobPost values.
#include "sources/jobs_json.hpp"

#include "sources/json_read.hpp"
#include "sources/upstream_error.hpp"

#include <boost/json/value.hpp>

namespace icsbridge {

namespace json = boost::json;
// The tolerant readers are this file's vocabulary.
using namespace jsonr;

namespace {

// Parses the body and turns a `"stat": "fail"` envelope (sent even with HTTP 200) into its error.
Result<jsonr::JsonDocument> parse_envelope(std::string_view body) {
    auto v = jsonr::parse_body(body);
    if (!v)
        return v.error();
    auto const* root = v->value.if_object();
    if (!root)
        return fail(errc::upstream_malformed, "the body is not a JSON object");
    if (text(*root, "stat") == "fail")
        return upstream_error(200, body, Api::jobs);
    return v;
}

struct Item {
    json::value const* value;
    std::string path;
};

// The XML-to-JSON envelope `{"<plural>": {"<singular>": [...]}}`; a one-element list may arrive as a bare
// object, and a plain `{"<plural>": [...]}` is accepted too.
Result<std::vector<Item>>
collection(json::object const& root, std::string_view plural, std::string_view singular) {
    std::string const outer(plural);
    auto const* env = member(root, plural);
    if (!env)
        return malformed(outer, "is missing");
    json::value const* list = env;
    std::string path = outer;
    if (auto const* o = env->if_object()) {
        path = join_path(outer, singular);
        list = member(*o, singular);
        // An empty result may come without the inner member at all.
        if (!list)
            return std::vector<Item>{};
    }
    std::vector<Item> out;
    if (auto const* arr = list->if_array()) {
        for (std::size_t i = 0; i < arr->size(); ++i)
            out.push_back({&(*arr)[i], path + "[" + std::to_string(i) + "]"});
    } else if (list->is_object()) {
        out.push_back({list, path});
    } else {
        return malformed(path, "is not a list");
    }
    return out;
}

Result<std::vector<Category>>
parse_named_list(std::string_view body, std::string_view plural, std::string_view singular) {
    auto v = parse_envelope(body);
    if (!v)
        return v.error();
    auto items = collection(v->value.get_object(), plural, singular);
    if (!items)
        return items.error();
    std::vector<Category> out;
    for (auto const& it : *items) {
        auto const* o = it.value->if_object();
        if (!o)
            return malformed(it.path, "is not an object");
        Category c{text(*o, "id"), text(*o, "name")};
        if (c.id.empty())
            return malformed(it.path + ".id", "is missing");
        if (c.name.empty())
            c.name = c.id;
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace

Result<JobPost> parse_job(json::value const& v, std::string const& path) {
    auto const* o = v.if_object();
    if (!o)
        return malformed(path.empty() ? std::string("the listing") : path, "is not an object");
    JobPost j;
    auto id = required_text(*o, "id", path);
    if (!id)
        return id.error();
    j.id = std::move(*id);
    auto title = required_text(*o, "title", path, /*allow_empty=*/true);
    if (!title)
        return title.error();
    j.title = std::move(*title);
    // post_date dates the VTODO/VEVENT, so a post without one cannot be placed on a calendar.
    auto posted = jsonr::required_local(*o, "post_date", path);
    if (!posted)
        return posted.error();
    j.posted = *posted;

    j.description_html = text(*o, "description");
    j.perks = text(*o, "perks");
    j.howto_apply = text(*o, "howto_apply");
    auto category = jsonr::id_and_name(*o, "category");
    j.category_id = std::move(category.id);
    j.category = std::move(category.name);
    auto type = jsonr::id_and_name(*o, "type");
    j.type_id = std::move(type.id);
    j.type = std::move(type.name);
    if (auto const* c = object_member(*o, "company")) {
        j.company = text(*c, "name");
        j.company_url = text(*c, "url");
        if (auto const* loc = object_member(*c, "location")) {
            j.location = text(*loc, "name");
            if (j.location.empty())
                j.location = text(*loc, "city");
            j.latitude = jsonr::as_number(member(*loc, "lat"));
            j.longitude = jsonr::as_number(member(*loc, "lng"));
            if (!j.latitude || !j.longitude) {
                j.latitude.reset();
                j.longitude.reset();
            }
        }
    }
    j.remote = jsonr::as_flag(member(*o, "telecommuting")).value_or(false);
    j.relocation = jsonr::as_flag(member(*o, "relocation_assistance")).value_or(false);
    // 2009 posts have no `url`; the renderer falls back to apply_url rather than us guessing a page address.
    j.url = text(*o, "url");
    j.apply_url = text(*o, "apply_url");
    return j;
}

Result<JobsPage> parse_jobs_page(std::string_view body) {
    auto v = parse_envelope(body);
    if (!v)
        return v.error();
    auto const& root = v->value.get_object();
    auto items = collection(root, "listings", "listing");
    if (!items)
        return items.error();
    JobsPage page;
    if (auto const* env = object_member(root, "listings")) {
        if (auto n = jsonr::as_integer(member(*env, "page")); n && *n > 0)
            page.page = static_cast<int>(*n);
        if (auto n = jsonr::as_integer(member(*env, "pages")); n && *n > 0)
            page.pages = static_cast<int>(*n);
        if (auto n = jsonr::as_integer(member(*env, "total")); n && *n >= 0)
            page.total = static_cast<std::size_t>(*n);
        if (auto n = jsonr::as_integer(member(*env, "perpage")); n && *n > 0)
            page.perpage = static_cast<int>(*n);
        if (auto const* lu = member(*env, "last_update"); lu && lu->is_string())
            page.last_update = jsonr::parse_instant(lu->get_string());
    }
    for (auto const& it : *items) {
        auto j = parse_job(*it.value, it.path);
        if (!j)
            return j.error();
        j->last_update = page.last_update;
        page.posts.push_back(std::move(*j));
    }
    return page;
}

Result<JobPost> parse_job_body(std::string_view body) {
    auto v = parse_envelope(body);
    if (!v)
        return v.error();
    auto const& root = v->value.get_object();
    // One post is `{"listing": {...}}`; a server that reuses the list envelope is read as well.
    if (auto const* l = member(root, "listing"))
        return parse_job(*l, "listing");
    auto items = collection(root, "listings", "listing");
    if (!items)
        return malformed("listing", "is missing");
    if (items->empty())
        return malformed("listings.listing", "is empty");
    return parse_job(*items->front().value, items->front().path);
}

Result<std::vector<Category>> parse_categories(std::string_view body) {
    return parse_named_list(body, "categories", "category");
}

Result<std::vector<Category>> parse_tags(std::string_view body) {
    return parse_named_list(body, "tags", "tag");
}

} // namespace icsbridge

// File: jobs_json.hpp
// Pure parsers for the job board payloads (listing envelopes, one post, categories, tags) in the
// Authentic Jobs shapes of UPSTREAM.md part 2. No I/O.
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/model.hpp>

#include <boost/json/fwd.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

/** @brief One page of `/api/posts/search/` or `/api/posts/recent/`. */
struct JobsPage {
    std::vector<JobPost> posts;
    std::optional<int> page; ///< 1-based, as the envelope echoes it
    int pages = 1;           ///< 1 when the envelope omits it
    std::optional<std::size_t> total;
    std::optional<int> perpage; ///< sent as an int or a string
    std::optional<sys_seconds> last_update;
};

/**
 * @brief Parses a listings envelope `{"listings": {"listing": [...] | {...}, ...}, "stat": "ok"}`.
 * @return the page; for `"stat": "fail"` the mapped upstream error (upstream_auth for a key complaint);
 * errc::upstream_malformed naming the JSON path for a malformed required field (id, title).
 */
Result<JobsPage> parse_jobs_page(std::string_view json);

/** @brief Parses one listing object; `path` prefixes the JSON path in error messages ("listings.listing[2]").
 */
Result<JobPost> parse_job(boost::json::value const& v, std::string const& path = {});

/** @brief Parses the body of GET /api/posts/{id}/: `{"listing": {...}, "stat": "ok"}`. */
Result<JobPost> parse_job_body(std::string_view json);

/** @brief Parses `{"categories": {"category": [...]}, "stat": "ok"}` into id + name. */
Result<std::vector<Category>> parse_categories(std::string_view json);

/** @brief Parses `{"tags": {"tag": [...]}, "stat": "ok"}` into id + name. */
Result<std::vector<Category>> parse_tags(std::string_view json);

} // namespace icsbridge

// File: render.cpp
// STUB until the calendar builder lands (owner: ical).
#include <icsbridge/calendar.hpp>

namespace icsbridge {

struct RenderCache::Impl {};
RenderCache::RenderCache() : impl_(std::make_unique<Impl>()) {}
RenderCache::~RenderCache() = default;
RenderCache::RenderCache(RenderCache&&) noexcept = default;
RenderCache& RenderCache::operator=(RenderCache&&) noexcept = default;

Result<std::string>
render_events(CalendarMeta const&, std::span<Event const>, EventRenderOptions const&, RenderCache*) {
    return fail(errc::render_failed, "calendar builder not implemented yet");
}
Result<std::string> render_jobs(CalendarMeta const&, std::span<JobPost const>, JobRenderOptions const&, RenderCache*) {
    return fail(errc::render_failed, "calendar builder not implemented yet");
}
std::string html_to_text(std::string_view html) { return std::string(html); }

} // namespace icsbridge

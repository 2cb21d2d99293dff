// File: push_journal.cpp
// The registrations' JSON, and the single box's journal: appended line by line (O_APPEND, so a line is
// written whole or, after a crash, as a torn last line that replay skips), rewritten compacted through
// write_file_atomically.
#include "dav/push_journal.hpp"

#include "util/base64url.hpp"
#include <icsbridge/files.hpp>

#include <boost/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

namespace icsbridge::dav {

namespace {

namespace json = boost::json;

std::string field(json::object const& o, char const* name) {
    auto const* v = o.if_contains(name);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

class Journal final : public PushPersistence {
  public:
    explicit Journal(std::string dir)
        : dir_(std::move(dir))
        , path_(push_journal_path(dir_)) {}

    Result<std::vector<PushRegistration>> load() override;
    Result<void> put(PushRegistration const& r) override;
    Result<bool> remove(std::string const& id) override;

  private:
    Result<void> append(std::string const& line);
    Result<void> compact();
    Result<void> make_directory() const;

    std::string dir_;
    std::string path_;
    std::map<std::string, std::string> lines_; ///< id -> its put line: what a compaction writes
    std::size_t written_ = 0;                  ///< lines in the file now
};

Result<void> Journal::make_directory() const {
    auto const dir = std::filesystem::path(path_).parent_path();
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec))
        return {};
    std::filesystem::create_directories(dir, ec);
    if (ec || ::chmod(dir.c_str(), 0700) != 0)
        return fail(
            errc::io_error,
            "cannot create " + dir.string() + ": " + (ec ? ec.message() : std::strerror(errno))
        );
    return {};
}

Result<std::vector<PushRegistration>> Journal::load() {
    lines_.clear();
    std::error_code ec;
    if (std::filesystem::exists(path_, ec)) {
        auto text = read_file(path_);
        if (!text)
            return text.error();
        for (std::size_t at = 0; at < text->size();) {
            auto end = text->find('\n', at);
            std::string_view const line =
                std::string_view(*text).substr(at, end == std::string::npos ? std::string::npos : end - at);
            at = end == std::string::npos ? text->size() : end + 1;
            if (line.starts_with("-"))
                lines_.erase(std::string(line.substr(1)));
            else if (auto r = registration_from_json(line))
                lines_[r->id] = std::string(line); // a torn last line reads as nothing
        }
    }
    if (auto ok = compact(); !ok)
        return ok.error();
    std::vector<PushRegistration> out;
    for (auto const& [id, line] : lines_)
        out.push_back(*registration_from_json(line));
    return out;
}

Result<void> Journal::compact() {
    if (auto made = make_directory(); !made)
        return made;
    std::string all;
    for (auto const& [id, line] : lines_)
        all.append(line).append("\n");
    if (auto written = write_file_atomically(path_, all, 0600); !written)
        return written;
    written_ = lines_.size();
    return {};
}

Result<void> Journal::append(std::string const& line) {
    if (written_ > 2 * lines_.size() + 1000)
        return compact(); // lines_ already holds the change
    if (auto made = make_directory(); !made)
        return made;
    int const fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(errc::io_error, "cannot open " + path_ + ": " + std::strerror(errno));
    std::string const text = line + "\n";
    auto const n = ::write(fd, text.data(), text.size());
    int const err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size()))
        return fail(errc::io_error, "cannot write " + path_ + ": " + std::strerror(n < 0 ? err : ENOSPC));
    ++written_;
    return {};
}

Result<void> Journal::put(PushRegistration const& r) {
    auto line = to_json(r);
    lines_[r.id] = line;
    return append(line);
}

Result<bool> Journal::remove(std::string const& id) {
    if (lines_.erase(id) == 0)
        return false;
    if (auto ok = append("-" + id); !ok)
        return ok.error();
    return true;
}

} // namespace

std::string to_json(PushRegistration const& r) {
    json::object o;
    o["id"] = r.id;
    o["feed"] = r.feed;
    o["push_resource"] = r.push_resource;
    o["p256dh"] = base64url(r.keys.p256dh);
    o["auth"] = base64url(r.keys.auth);
    o["depth"] = r.depth;
    o["expires"] = static_cast<std::int64_t>(r.expires.time_since_epoch().count());
    o["subscriber"] = r.subscriber;
    o["token_digest"] = r.token_digest;
    return json::serialize(o);
}

std::optional<PushRegistration> registration_from_json(std::string_view text) {
    boost::system::error_code ec;
    auto const v = json::parse(text, ec);
    auto const* o = ec ? nullptr : v.if_object();
    if (!o)
        return std::nullopt;
    PushRegistration r;
    r.id = field(*o, "id");
    r.feed = field(*o, "feed");
    r.push_resource = field(*o, "push_resource");
    auto p256dh = from_base64url(field(*o, "p256dh"));
    auto auth = from_base64url(field(*o, "auth"));
    auto const* expires = o->if_contains("expires");
    if (r.id.empty() || r.feed.empty() || !p256dh || !auth || !expires || !expires->is_int64())
        return std::nullopt;
    r.keys = {std::move(*p256dh), std::move(*auth)};
    r.depth = field(*o, "depth");
    r.expires = std::chrono::sys_seconds(std::chrono::seconds(expires->get_int64()));
    r.subscriber = field(*o, "subscriber");
    r.token_digest = field(*o, "token_digest");
    return r;
}

std::string push_journal_path(std::string const& storage_dir) {
    return storage_dir + "/webpush/registrations";
}

std::shared_ptr<PushPersistence> push_journal(std::string const& storage_dir) {
    return std::make_shared<Journal>(storage_dir);
}

} // namespace icsbridge::dav

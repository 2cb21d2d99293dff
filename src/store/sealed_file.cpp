// File: sealed_file.cpp
// SealedFile: snapshot bytes in a sealed memfd, so the server can sendfile() them.
#include <icsbridge/files.hpp>
#include <icsbridge/store.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace icsbridge {

std::shared_ptr<SealedFile const> SealedFile::make(std::string_view bytes) {
    int fd = ::memfd_create("icsbridge-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return nullptr; // the server then writes from the heap copy, as for small bodies
    auto file = std::make_shared<SealedFile const>(fd);
    if (!write_all(fd, bytes) ||
        ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
        return nullptr;
    return file;
}

SealedFile::~SealedFile() {
    ::close(fd_);
}

} // namespace icsbridge

// File: qr_svg.cpp
// qr_svg(): libqrencode's module matrix -> one SVG path. Runs of dark modules in a row become one
// rectangle each, which keeps a 50-character URL's code near 2 KB.
#include "server/qr_svg.hpp"

#include <qrencode.h>

#include <memory>

namespace icsbridge {

std::string qr_svg(std::string_view text, std::string_view label) {
    std::string const input(text); // libqrencode wants a NUL-terminated string
    std::unique_ptr<QRcode, decltype(&QRcode_free)> code(
        QRcode_encodeString(input.c_str(), 0, QR_ECLEVEL_M, QR_MODE_8, 1),
        &QRcode_free
    );
    if (!code)
        return {};
    int const n = code->width;
    constexpr int quiet = 4; // the quiet zone scanners need around the code
    std::string path;
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n;) {
            // Bit 0 of each module byte is "dark" (qrencode.h).
            if (!(code->data[y * n + x] & 1)) {
                ++x;
                continue;
            }
            int run = 1;
            while (x + run < n && (code->data[y * n + x + run] & 1))
                ++run;
            path += 'M' + std::to_string(x + quiet) + ',' + std::to_string(y + quiet) + 'h' +
                    std::to_string(run) + "v1h-" + std::to_string(run) + 'z';
            x += run;
        }
    }
    std::string const size = std::to_string(n + 2 * quiet);
    return "<svg class=\"qr\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + size + ' ' + size +
           "\" role=\"img\" aria-label=\"" + std::string(label) +
           "\" shape-rendering=\"crispEdges\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path "
           "d=\"" +
           path + "\" fill=\"#000\"/></svg>";
}

} // namespace icsbridge

// File: qr_svg.hpp
// A QR code as inline SVG, encoded by libqrencode (so a phone can scan a subscribe URL off the page).
#pragma once

#include <string>
#include <string_view>

namespace icsbridge {

/**
 * @brief `<svg ...>` drawing the QR code of `text` (error correction M, 4-module quiet zone), one path of
 * unit squares, scaled by CSS; `label` (HTML-escaped by the caller) becomes its aria-label. Empty if
 * libqrencode cannot encode the text (too long).
 */
std::string qr_svg(std::string_view text, std::string_view label);

} // namespace icsbridge

// The colours of warpscope (see viz/theme.h).
#include "viz/theme.h"

namespace ws::viz {

std::uint32_t palette(std::size_t i) {
  static constexpr std::uint32_t p[] = {
      rgba(0x00, 0x72, 0xB2), rgba(0xE6, 0x9F, 0x00), rgba(0x00, 0x9E, 0x73),
      rgba(0xCC, 0x79, 0xA7), rgba(0x56, 0xB4, 0xE9), rgba(0xD5, 0x5E, 0x00),
      rgba(0x7F, 0x7F, 0x7F), rgba(0xBC, 0xBD, 0x22)};
  return p[i % (sizeof p / sizeof p[0])];
}

ChartTheme ChartTheme::dark() {
  ChartTheme t;
  t.background = rgba(30, 32, 36);
  t.text = rgba(225, 225, 225);
  t.axis = rgba(170, 170, 170);
  t.grid = rgba(62, 64, 70);
  t.ref = rgba(200, 200, 200);
  return t;
}

ChartTheme ChartTheme::high_contrast() {
  ChartTheme t;
  t.background = rgba(0, 0, 0);
  t.text = rgba(255, 255, 255);
  t.axis = rgba(255, 255, 255);
  t.grid = rgba(70, 70, 70);
  t.ref = rgba(255, 255, 255);
  return t;
}

}  // namespace ws::viz

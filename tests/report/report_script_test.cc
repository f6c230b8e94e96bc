// The report's script as text: it can sit inside <script> as is, and the
// selftest's outcome is never in the page's source (report_check.sh greps
// the rendered DOM for it). Its behaviour in a browser: report_browser_test.cc.
#include "report/report_script.h"

#include <gtest/gtest.h>

#include <string>

namespace storebench {
namespace {

TEST(ReportScriptTest, FitsInsideAScriptElement) {
  const std::string js(ReportScript());
  EXPECT_EQ(js.find("</"), std::string::npos);
  EXPECT_EQ(js.find("<!--"), std::string::npos);
  EXPECT_NE(js.find("' series drawn in '"), std::string::npos);
}

TEST(ReportScriptTest, SourceHoldsNoOutcome) {
  const std::string js(ReportScript());
  EXPECT_EQ(js.find("selftest: ok"), std::string::npos);
  EXPECT_EQ(js.find("selftest: FAIL"), std::string::npos);
  EXPECT_NE(js.find("location.hash !== '#selftest'"), std::string::npos);
}

}  // namespace
}  // namespace storebench

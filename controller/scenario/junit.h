// JUnit XML, the report format CI systems read: one testsuite per regress run, one
// testcase per judged item. Pure.
#pragma once

#include <string>
#include <vector>

namespace testbed {

struct JunitCase {
  std::string classname;  // the scenario
  std::string name;       // the expectation or check
  double seconds = 0;
  bool failed = false;
  std::string message;  // why it failed
};

std::string junit_xml(const std::string& suite, const std::vector<JunitCase>& cases);

}  // namespace testbed

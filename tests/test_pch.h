// The system headers every suite parses: precompiled once per kind of suite (tests/CMakeLists.txt). Parsing
// Qt Test, nlohmann/json and libstdc++ was 35-40% of compiling a suite (11.6 s against 8.1 s for tst_cli,
// 9.7 against 5.9 for tst_analysis on a 2-vCPU EPYC VM). Only headers from outside the project: a change to
// ours must not rebuild every suite's header. A suite still includes what it uses; this only makes it cheap.
#pragma once

#include <QDir>
#include <QFile>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#pragma once
// A second profile whose differences from the first are known, for the suites that compare two profiles
// (the CLI's diff and report --baseline, the explorer's comparison window).
#include "test_support.h"

#include <QString>
#include <QTemporaryDir>

#include <fstream>
#include <nlohmann/json.hpp>

namespace xps::test {

// kineto_step.json (tests/data) with each of its two GEMM kernels 60 us longer and the step 100 us longer,
// written into `dir`: a second profile whose differences are known.
inline QString writeSlowerKinetoStep(const QTemporaryDir& dir)
{
    nlohmann::json trace = nlohmann::json::parse(std::ifstream(sourceDir() + "/tests/data/kineto_step.json"));
    for (auto& e : trace["traceEvents"]) {
        if (e.value("name", "") == "sgemm_128x64")
            e["dur"] = e["dur"].get<int>() + 60;
        if (e.value("name", "") == "ProfilerStep#1")
            e["dur"] = e["dur"].get<int>() + 100;
    }
    const QString slower = dir.filePath(QStringLiteral("slower_step.json"));
    std::ofstream(slower.toStdString()) << trace.dump();
    return slower;
}

} // namespace xps::test

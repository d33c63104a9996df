#pragma once
// Running xpushark-cli from a test as a user runs it: its exit code and what it printed. Shared by the CLI
// suites.
#include "test_support.h"

#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace xps::test {

struct Run
{
    int exitCode = -1;
    std::string out;
    std::string err;
};

inline Run runProgram(const QString& program, const QStringList& args, const QString& workingDirectory = {})
{
    QProcess p;
    if (!workingDirectory.isEmpty())
        p.setWorkingDirectory(workingDirectory);
    // The suite's own QT_FATAL_WARNINGS is for this process, not for the program it runs.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_FATAL_WARNINGS"));
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(120000))
        qFatal("%s did not finish", qPrintable(program));
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            p.readAllStandardOutput().toStdString(), p.readAllStandardError().toStdString()};
}

inline Run cli(const QStringList& args)
{
    return runProgram(QString::fromLocal8Bit(qgetenv("XPS_CLI")), args);
}

// A bundled sample trace by file name.
inline QString sample(const QString& name)
{
    return QString::fromStdString(sourceDir() + "/resources/samples/") + name;
}

// A data-driven test's rows: one per naive/tuned sample pair ("allgather" for allgather_naive and
// allgather_tuned), in a QString column "pair".
inline void addSamplePairRows()
{
    QTest::addColumn<QString>("pair");
    for (const char* pair : {"allgather", "decode", "matmul", "smalltile"})
        QTest::newRow(pair) << QString::fromLatin1(pair);
}

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

#pragma once
// Running xpushark-cli from a test as a user runs it: its exit code and what it printed. Shared by the CLI
// suites.
#include "slower_kineto_step.h"
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

// The tuned decode sample's replay written as Chrome JSON by `convert --to chrome` into `dir`: a profile
// another run of a bundled trace can be compared with, as a measured one would be.
inline QString exportTunedDecode(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("tuned.json"));
    const Run r = cli({QStringLiteral("convert"), sample(QStringLiteral("decode_tuned.xtrace.json")),
                       QStringLiteral("--to"), QStringLiteral("chrome"), QStringLiteral("-o"), path});
    if (r.exitCode != 0)
        qFatal("convert --to chrome failed: %s", r.err.c_str());
    return path;
}

// A data-driven test's rows: one per naive/tuned sample pair ("allgather" for allgather_naive and
// allgather_tuned), in a QString column "pair".
inline void addSamplePairRows()
{
    QTest::addColumn<QString>("pair");
    for (const char* pair : {"allgather", "decode", "matmul", "smalltile"})
        QTest::newRow(pair) << QString::fromLatin1(pair);
}

} // namespace xps::test

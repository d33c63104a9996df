// Text helpers people's input goes through (util/text.h): sizes typed on the command line read as the
// bytes they name, and anything else is refused rather than read as something near it.
#include "test_support.h"

#include "util/text.h"

#include <cstdint>

using namespace xps;

Q_DECLARE_METATYPE(std::uint64_t)

class TestText : public QObject
{
    Q_OBJECT
private slots:
    void parseBytesReadsSizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<std::uint64_t>("bytes");
        QTest::newRow("zero") << "0" << std::uint64_t{0};
        QTest::newRow("bytes") << "4096" << std::uint64_t{4096};
        QTest::newRow("bytes with B") << "4096B" << std::uint64_t{4096};
        QTest::newRow("K") << "64K" << std::uint64_t{64} * 1024;
        QTest::newRow("lower-case k") << "64k" << std::uint64_t{64} * 1024;
        QTest::newRow("MiB") << "512MiB" << (std::uint64_t{512} << 20);
        QTest::newRow("G") << "8G" << (std::uint64_t{8} << 30);
        QTest::newRow("fraction") << "1.5G" << (std::uint64_t{3} << 29);
        QTest::newRow("fraction rounded down") << "0.3K" << std::uint64_t{307}; // 307.2
        QTest::newRow("fraction past six digits dropped") << "1.0000009K" << std::uint64_t{1024};
        QTest::newRow("T") << "2TiB" << (std::uint64_t{2} << 40);
        QTest::newRow("largest") << "18446744073709551615" << UINT64_MAX;
        QTest::newRow("largest in T") << "16777215T" << (std::uint64_t{16777215} << 40);
    }
    void parseBytesReadsSizes()
    {
        QFETCH(QString, text);
        QFETCH(std::uint64_t, bytes);
        const std::optional<std::uint64_t> got = text::parseBytes(text.toStdString());
        QVERIFY(got.has_value());
        QCOMPARE(*got, bytes);
    }

    void parseBytesRefusesTheRest_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("word") << "lots";
        QTest::newRow("negative") << "-1";
        QTest::newRow("space") << "8 G";
        QTest::newRow("leading space") << " 8G";
        QTest::newRow("unknown unit") << "12Q";
        QTest::newRow("decimal unit GB (ambiguous)") << "8GB";
        QTest::newRow("unit alone") << "G";
        QTest::newRow("a fraction of a byte") << "1.5";
        QTest::newRow("a fraction of a byte with B") << "1.5B";
        QTest::newRow("K and B") << "8KB";
        QTest::newRow("point without digits") << "1.G";
        QTest::newRow("point first") << ".5G";
        QTest::newRow("past 2^64 bytes") << "18446744073709551616";
        QTest::newRow("past 2^64 in T") << "16777216T";
        QTest::newRow("twenty digits") << "99999999999999999999K";
    }
    void parseBytesRefusesTheRest()
    {
        QFETCH(QString, text);
        QVERIFY(!text::parseBytes(text.toStdString()).has_value());
    }

    // What formatBytes writes ("32 MiB"), without its space, reads back (to the precision it writes).
    void formatBytesReadsBack()
    {
        for (const std::uint64_t bytes :
             {std::uint64_t{17}, std::uint64_t{32} << 20, std::uint64_t{3} << 39}) {
            std::string written = text::formatBytes(bytes);
            written.erase(written.find(' '), 1);
            QCOMPARE(text::parseBytes(written), std::optional<std::uint64_t>(bytes));
        }
    }
};

QTEST_GUILESS_MAIN(TestText)
#include "tst_text.moc"

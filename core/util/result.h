#pragma once
// Errors are values. Every fallible core API returns Result<T>; the message names where the problem is
// (file:line:column or a JSON path / table row) and what was expected, so a person can act on it.

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace xps {

struct Diagnostic
{
    std::string location; // "kernel.xasm:12:7", "trace.json: $.chips[0].buffers[2].size", "trace.xps: table
                          // blobs, id 3"
    std::string message;

    std::string toString() const { return location.empty() ? message : location + ": " + message; }
};

// One or more diagnostics; the first is the primary one. Assemblers report several at once like a compiler.
class Error
{
public:
    Error() = default;
    Error(std::string location, std::string message)
    {
        m_diagnostics.push_back({std::move(location), std::move(message)});
    }
    explicit Error(std::vector<Diagnostic> diagnostics) : m_diagnostics(std::move(diagnostics)) {}

    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }
    const Diagnostic& primary() const { return m_diagnostics.front(); }
    const std::string& location() const { return primary().location; }
    const std::string& message() const { return primary().message; }

    // All diagnostics, one per line.
    std::string toString() const
    {
        std::string out;
        for (const auto& d : m_diagnostics) {
            if (!out.empty())
                out += '\n';
            out += d.toString();
        }
        return out;
    }

private:
    std::vector<Diagnostic> m_diagnostics;
};

template <typename T> class [[nodiscard]] Result
{
public:
    Result(T value) : m_data(std::move(value)) {}
    Result(Error error) : m_data(std::move(error)) {}

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_data); }
    const T& value() const& { return std::get<0>(m_data); }
    T&& value() && { return std::get<0>(std::move(m_data)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<1>(m_data); }

private:
    std::variant<T, Error> m_data;
};

// Result of an operation that produces nothing but may fail.
struct Ok
{
};
using Status = Result<Ok>;

} // namespace xps

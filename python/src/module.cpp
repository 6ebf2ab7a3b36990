// gpualign._core: the compiled half of the Python module (pybind11). The
// Python half (python/gpualign/__init__.py) turns keyword arguments into the
// command line the CLI would get; this file parses it with the CLI's own
// parser (app/cli.hpp: the same options, defaults and validation), runs the
// library's pipelines (pipeline/in_memory.hpp, search/search.hpp) with the
// GIL released, and hands results back as NumPy columns.
//
// Exceptions: a bad command line (cli::UsageError), a bad option value or
// sequence (std::invalid_argument, OptionError) and bad input
// (InputError: file, record, position) become ValueError; OutputError
// becomes OSError; other std::runtime_error (CUDA errors, named by
// cudaGetErrorName) RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/model/strand.hpp"
#include "gpualign/pipeline/in_memory.hpp"
#include "gpualign/search/search.hpp"

namespace py = pybind11;

namespace gpualign::python {
namespace {

/// The configuration of a command line, as the CLI parses and validates it.
/// @throws cli::UsageError (ValueError) naming the option.
AlignConfig parse_config(const std::vector<std::string>& argv) {
    std::vector<const char*> args;
    args.reserve(argv.size());
    for (const std::string& a : argv) args.push_back(a.c_str());
    cli::Command cmd = cli::parse_command_line(static_cast<int>(args.size()), args.data());
    if (cmd.action != cli::Command::Action::align)
        throw cli::UsageError("not an alignment or search command line: " + cmd.config.command_line);
    return std::move(cmd.config);
}

/// A Python list of str/bytes (or (name, sequence) tuples) read as views.
/// The views borrow the objects in `keep` (held, with their references,
/// until the list is encoded, so that another thread cannot free them).
struct BorrowedList {
    std::vector<py::object> keep;
    std::vector<std::string_view> names;
    std::vector<std::string_view> sequences;
};

std::string_view text_of(const py::handle& item, const char* role, std::size_t k, const char* what) {
    if (PyUnicode_Check(item.ptr())) {
        Py_ssize_t size = 0;
        const char* data = PyUnicode_AsUTF8AndSize(item.ptr(), &size);
        if (!data) throw py::error_already_set();
        return {data, static_cast<std::size_t>(size)};
    }
    if (PyBytes_Check(item.ptr())) {
        char* data = nullptr;
        Py_ssize_t size = 0;
        if (PyBytes_AsStringAndSize(item.ptr(), &data, &size) != 0) throw py::error_already_set();
        return {data, static_cast<std::size_t>(size)};
    }
    throw py::type_error(std::string(role) + "[" + std::to_string(k) + "]: " + what + " must be str or bytes, not " +
                         std::string(py::str(py::type::of(item).attr("__name__"))));
}

BorrowedList borrow(const py::sequence& seqs, const char* role) {
    BorrowedList out;
    const std::size_t n = py::len(seqs);
    out.keep.reserve(n);
    out.sequences.reserve(n);
    bool named = false;
    for (std::size_t k = 0; k < n; ++k) {
        py::object item = seqs[k];
        const bool pair = PyTuple_Check(item.ptr());
        if (k == 0) named = pair;
        if (pair != named)
            throw py::type_error(std::string(role) + "[" + std::to_string(k) +
                                 "]: give every item as a sequence, or every item as a (name, sequence) tuple");
        if (pair) {
            const py::tuple t = item.cast<py::tuple>();
            if (t.size() != 2)
                throw py::type_error(std::string(role) + "[" + std::to_string(k) + "]: a (name, sequence) tuple has 2 items");
            out.names.push_back(text_of(t[0], role, k, "the name"));
            out.sequences.push_back(text_of(t[1], role, k, "the sequence"));
        } else {
            out.sequences.push_back(text_of(item, role, k, "a sequence"));
        }
        out.keep.push_back(std::move(item));
    }
    return out;
}

/// The results of one align() call, and the configuration they were
/// aligned with (for writing them later).
class PairSet {
public:
    PairSet(PairResults r, AlignConfig c) : r_(std::move(r)), c_(std::move(c)) {}

    std::size_t size() const noexcept { return r_.results.size(); }

    /// One column by its TSV name: an int64/float64 array, a list of str
    /// (query, ref, cigar) or a str array of '+'/'-' (strand).
    py::object column(const std::string& name) const {
        const std::size_t n = size();
        const auto ints = [&](auto&& value) {
            py::array_t<std::int64_t> a(static_cast<py::ssize_t>(n));
            auto m = a.mutable_unchecked<1>();
            for (std::size_t k = 0; k < n; ++k) m(k) = value(k);
            return py::object(a);
        };
        const auto fwd = [&](std::size_t k) {
            const AlignmentResult& res = r_.results[k];
            return forward_interval(res.strand, res.query_begin, res.query_end,
                                    static_cast<std::int64_t>(r_.queries[k].sequence.size()));
        };
        // The CIGAR-derived columns: -1 (identity NaN) for score-only results.
        const auto stat = [&](auto&& field) {
            return ints([&](std::size_t k) -> std::int64_t {
                const AlignmentResult& res = r_.results[k];
                return res.has_cigar ? static_cast<std::int64_t>(field(cigar_stats(res.cigar))) : -1;
            });
        };
        if (name == "query_len") return ints([&](std::size_t k) { return r_.queries[k].sequence.size(); });
        if (name == "ref_len") return ints([&](std::size_t k) { return r_.refs[k].sequence.size(); });
        if (name == "query_begin") return ints([&](std::size_t k) { return fwd(k).begin; });
        if (name == "query_end") return ints([&](std::size_t k) { return fwd(k).end; });
        if (name == "ref_begin") return ints([&](std::size_t k) { return r_.results[k].ref_begin; });
        if (name == "ref_end") return ints([&](std::size_t k) { return r_.results[k].ref_end; });
        if (name == "score") return ints([&](std::size_t k) { return r_.results[k].score; });
        if (name == "matches") return stat([](const CigarStats& s) { return s.matches; });
        if (name == "mismatches") return stat([](const CigarStats& s) { return s.mismatches; });
        if (name == "gap_opens") return stat([](const CigarStats& s) { return s.gap_opens; });
        if (name == "alignment_len") return stat([](const CigarStats& s) { return s.alignment_len(); });
        if (name == "identity") {
            py::array_t<double> a(static_cast<py::ssize_t>(n));
            auto m = a.mutable_unchecked<1>();
            for (std::size_t k = 0; k < n; ++k) {
                const AlignmentResult& res = r_.results[k];
                const CigarStats s = cigar_stats(res.cigar);
                m(k) = !res.has_cigar ? std::numeric_limits<double>::quiet_NaN()
                       : s.alignment_len() == 0
                           ? 0.0
                           : static_cast<double>(s.matches) / static_cast<double>(s.alignment_len());
            }
            return a;
        }
        if (name == "query" || name == "ref" || name == "cigar") {
            py::list out(n);
            for (std::size_t k = 0; k < n; ++k) {
                std::string text;
                if (name == "query") text = r_.queries[k].name;
                else if (name == "ref") text = r_.refs[k].name;
                else
                    text = !r_.results[k].has_cigar || r_.results[k].cigar.empty() ? "*" : cigar_string(r_.results[k].cigar);
                PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
                if (!s) throw py::error_already_set();
                PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(k), s);
            }
            return out;
        }
        if (name == "strand") {
            // UCS-4 code points viewed as NumPy's 'U1' (one character, 4 bytes).
            py::array_t<std::uint32_t> a(static_cast<py::ssize_t>(n));
            auto m = a.mutable_unchecked<1>();
            for (std::size_t k = 0; k < n; ++k) m(k) = static_cast<std::uint32_t>(strand_char(r_.results[k].strand));
            return a.attr("view")("U1");
        }
        throw py::key_error("no column '" + name + "'");
    }

    /// Writes the pairs as the CLI would with `argv` (the align call's
    /// command line plus -o PATH --format F): the configuration is parsed and
    /// validated again, so that what the CLI refuses (score-only SAM) is
    /// refused here.
    /// `command_line`: SAM @PG CL; none: the aligning command line.
    void write(const std::vector<std::string>& argv, const std::optional<std::string>& command_line) const {
        AlignConfig w = parse_config(argv);
        w.command_line = command_line.value_or(c_.command_line);
        py::gil_scoped_release unlocked;
        write_pair_results(r_, w);
    }

    std::string alphabet() const { return to_string(r_.alphabet); }
    std::string backend() const { return r_.stats.backend; }
    double seconds() const { return r_.stats.seconds; }
    std::uint64_t cells() const { return r_.stats.cells; }
    std::string scheme() const { return r_.scheme.matrix_name; }
    std::int32_t gap_open() const { return r_.scheme.gap_open; }
    std::int32_t gap_extend() const { return r_.scheme.gap_extend; }

private:
    PairResults r_;
    AlignConfig c_;
};

std::shared_ptr<PairSet> align_lists(const std::vector<std::string>& argv, const py::sequence& queries,
                                     const py::sequence& refs) {
    AlignConfig c = parse_config(argv);
    BorrowedList q = borrow(queries, "queries"), r = borrow(refs, "refs");
    SequenceList ql{q.names, q.sequences, "q", "queries"}, rl{r.names, r.sequences, "r", "refs"};
    PairResults res;
    {
        py::gil_scoped_release unlocked;
        res = align_sequence_lists(c, ql, rl);
    }
    return std::make_shared<PairSet>(std::move(res), std::move(c));
}

std::shared_ptr<PairSet> align_paths(const std::vector<std::string>& argv) {
    AlignConfig c = parse_config(argv);
    PairResults res;
    {
        py::gil_scoped_release unlocked;
        res = align_files(c);
    }
    return std::make_shared<PairSet>(std::move(res), std::move(c));
}

/// `gpualign search` as the CLI runs it, writing its output file.
/// @return the number of (query, DB record) pairs scored.
std::uint64_t search(const std::vector<std::string>& argv) {
    const AlignConfig c = parse_config(argv);
    py::gil_scoped_release unlocked;
    return run_search(c).pairs;
}

/// The visible CUDA devices: (ordinal, description) pairs.
std::vector<std::pair<int, std::string>> devices() {
    std::vector<std::pair<int, std::string>> out;
    const int n = gpu::device_count();
    for (int d = 0; d < n; ++d) out.emplace_back(d, gpu::device_description(d));
    return out;
}

/// Warnings and errors of the library go to stderr as the CLI writes them
/// ("[gpualign] warning: ..."); info and debug lines are left out.
void install_logger() {
    auto logger = spdlog::stderr_color_mt("gpualign_python");
    logger->set_pattern("[gpualign] %^%l%$: %v");
    logger->set_level(spdlog::level::warn);
    spdlog::set_default_logger(logger);
}

}  // namespace
}  // namespace gpualign::python

PYBIND11_MODULE(_core, m) {
    using namespace gpualign;
    using namespace gpualign::python;
    m.doc() = "gpualign's compiled core; use the gpualign package.";
    install_logger();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const OutputError& e) {
            PyErr_SetString(PyExc_OSError, e.what());
        }
    });
    py::class_<PairSet, std::shared_ptr<PairSet>>(m, "PairSet")
        .def("__len__", &PairSet::size)
        .def("column", &PairSet::column, py::arg("name"))
        .def("write", &PairSet::write, py::arg("argv"), py::arg("command_line") = py::none())
        .def_property_readonly("alphabet", &PairSet::alphabet)
        .def_property_readonly("backend", &PairSet::backend)
        .def_property_readonly("seconds", &PairSet::seconds)
        .def_property_readonly("cells", &PairSet::cells)
        .def_property_readonly("matrix", &PairSet::scheme)
        .def_property_readonly("gap_open", &PairSet::gap_open)
        .def_property_readonly("gap_extend", &PairSet::gap_extend);
    m.def("align_lists", &align_lists, py::arg("argv"), py::arg("queries"), py::arg("refs"));
    m.def("align_paths", &align_paths, py::arg("argv"));
    m.def("search", &search, py::arg("argv"));
    m.def("devices", &devices);
    m.attr("version") = GPUALIGN_VERSION;
    m.attr("commit") = GPUALIGN_GIT_COMMIT;
}

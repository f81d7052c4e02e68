//! `fairlab._core`: the thin PyO3 boundary. Scenario text in, columnar
//! tables out (see docs/binding.md). No simulation logic lives here.

// pyo3 0.22's #[pyfunction] expansion trips this lint on every PyResult return.
#![allow(clippy::useless_conversion)]

use fairlab_sim::metrics::{Column, Value};
use fairlab_sim::spec::tcp::auto_clock;
use fairlab_sim::spec::{toml_key_at, TOML_INTEGER_RANGE};
use fairlab_sim::units::{BitsPerSec, Bytes, Time};
use fairlab_sim::vocab::{BufferLimit, Clock};
use fairlab_sim::{RunResult, Scenario, ScenarioError as SimScenarioError};
use pyo3::create_exception;
use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::ffi::c_void;
use std::io::Write;
use std::ops::ControlFlow;
use std::os::raw::c_int;
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

mod alloc;
mod radon;

create_exception!(
    fairlab._core,
    ScenarioError,
    PyValueError,
    "A scenario field is missing or has a value that is not allowed."
);

/// Every message is one line: the TOML parser's can hold several.
fn one_line(msg: &str) -> String {
    msg.trim()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(": ")
}

fn scenario_err(e: SimScenarioError) -> PyErr {
    ScenarioError::new_err(one_line(&e.to_string()))
}

fn parse(text: &str, toml: bool) -> PyResult<Scenario> {
    let r = if toml {
        Scenario::from_toml_str(text)
    } else {
        Scenario::from_json_str(text)
    };
    r.map_err(scenario_err)
}

/// A text progress bar on stderr, redrawn at most every whole percent,
/// with the run's estimated packet-hops and the time left at the rate so
/// far.
struct Bar {
    last: i32,
    started: Instant,
    /// The estimate's packet-hops (what the run is sized by).
    est_hops: u64,
}

impl Bar {
    fn update(&mut self, f: f64) {
        let pct = (f.clamp(0.0, 1.0) * 100.0) as i32;
        if pct == self.last {
            return;
        }
        self.last = pct;
        let filled = (pct / 4) as usize;
        let spent_s = self.started.elapsed().as_secs_f64();
        let left = if pct > 0 && pct < 100 {
            format!(", about {:.0} s left", spent_s * (1.0 - f) / f)
        } else {
            String::new()
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r  simulating [{}{}] {:3}% of about {:.1e} packet-hops{left}   ",
            "#".repeat(filled),
            " ".repeat(25 - filled),
            pct,
            self.est_hops as f64,
        );
        if pct >= 100 {
            let _ = writeln!(err);
        }
        let _ = err.flush();
    }
}

/// How often, at most, a run takes the GIL to let Python handle signals.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

fn run(py: Python<'_>, sc: Scenario, seed: Option<u64>, progress: bool) -> PyResult<PyObject> {
    // The run holds no GIL; every SIGNAL_CHECK (at the simulator's progress
    // calls, every 65536 events) it takes the GIL and runs Python's signal
    // handlers. If one raises (Ctrl-C: KeyboardInterrupt), the run stops and
    // the exception is raised here.
    let mut raised: Option<PyErr> = None;
    let outcome = py.allow_threads(|| {
        panic::catch_unwind(AssertUnwindSafe(|| {
            let mut bar = progress.then(|| Bar {
                last: -1,
                started: Instant::now(),
                est_hops: sc.resolve().map_or(0, |r| r.estimate.packet_hops()),
            });
            let mut checked = Instant::now();
            fairlab_sim::run_until_stopped(&sc, seed, &mut |f| {
                if let Some(bar) = bar.as_mut() {
                    bar.update(f);
                }
                if checked.elapsed() >= SIGNAL_CHECK {
                    checked = Instant::now();
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        if bar.is_some() {
                            eprintln!();
                        }
                        raised = Some(e);
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            })
        }))
    });
    match outcome {
        Ok(Ok(Some(res))) => to_python(py, res),
        Ok(Ok(None)) => Err(raised.expect("a run stops only when a signal handler raised")),
        Ok(Err(e)) => Err(scenario_err(e)),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown".into());
            Err(PyRuntimeError::new_err(format!(
                "internal simulator error (please report with the scenario): {msg}"
            )))
        }
    }
}

/// One column's memory, handed to Python without a copy: it exposes its
/// bytes through the buffer protocol (read-only), and pyarrow wraps them as an
/// Arrow buffer that keeps this object alive.
#[pyclass(frozen, module = "fairlab._core")]
struct ColumnBuffer {
    data: BufferData,
}

enum BufferData {
    I64(Vec<i64>),
    F64(Vec<f64>),
    U8(Vec<u8>),
}

impl ColumnBuffer {
    fn new(data: BufferData) -> ColumnBuffer {
        ColumnBuffer { data }
    }

    /// Start and length in bytes (native byte order, which Arrow uses).
    fn bytes(&self) -> (*const u8, usize) {
        match &self.data {
            BufferData::I64(v) => (v.as_ptr().cast(), std::mem::size_of_val(v.as_slice())),
            BufferData::F64(v) => (v.as_ptr().cast(), std::mem::size_of_val(v.as_slice())),
            BufferData::U8(v) => (v.as_ptr(), v.len()),
        }
    }
}

#[pymethods]
impl ColumnBuffer {
    /// # Safety
    /// Called by CPython with a valid `view`; the exported memory lives as
    /// long as `self`, which the view holds a reference to.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("a result column is read-only"));
        }
        let (ptr, len) = slf.get().bytes();
        // Fills a read-only, one-dimensional byte view and takes a reference to `slf`.
        if ffi::PyBuffer_FillInfo(
            view,
            slf.as_ptr(),
            ptr as *mut c_void,
            len as ffi::Py_ssize_t,
            1,
            flags,
        ) == -1
        {
            return Err(PyErr::fetch(slf.py()));
        }
        Ok(())
    }

    fn __len__(&self) -> usize {
        self.bytes().1
    }
}

/// One column as `(name, arrow type, rows, buffers)`: `int64` and `float64`
/// have one value buffer; `large_string` has 64-bit offsets and UTF-8 data.
fn column_to_python(py: Python<'_>, name: String, c: Column) -> PyResult<PyObject> {
    let rows = c.len();
    let buf = |d| Py::new(py, ColumnBuffer::new(d));
    let (kind, buffers) = match c {
        Column::I64(v) => ("int64", vec![buf(BufferData::I64(v))?]),
        Column::F64(v) => ("float64", vec![buf(BufferData::F64(v))?]),
        Column::Str(v) => {
            let mut offsets = Vec::with_capacity(v.len() + 1);
            let mut data = Vec::with_capacity(v.iter().map(String::len).sum());
            offsets.push(0i64);
            for s in &v {
                data.extend_from_slice(s.as_bytes());
                offsets.push(data.len() as i64);
            }
            drop(v);
            (
                "large_string",
                vec![buf(BufferData::I64(offsets))?, buf(BufferData::U8(data))?],
            )
        }
    };
    Ok((name, kind, rows, PyTuple::new_bound(py, buffers)).into_py(py))
}

fn to_python(py: Python<'_>, res: RunResult) -> PyResult<PyObject> {
    let out = PyDict::new_bound(py);
    let summary = PyDict::new_bound(py);
    for (k, v) in &res.summary {
        match v {
            Value::Int(i) => summary.set_item(k, *i)?,
            Value::Float(f) => summary.set_item(k, *f)?,
            Value::Str(s) => summary.set_item(k, s)?,
        }
    }
    out.set_item("summary", summary)?;
    let tables = PyDict::new_bound(py);
    // Each column's memory moves into its buffer object as it is converted.
    for (name, t) in res.tables {
        let cols = PyList::empty_bound(py);
        for (cname, c) in t.columns {
            cols.append(column_to_python(py, cname, c)?)?;
        }
        tables.set_item(name, cols)?;
    }
    out.set_item("tables", tables)?;
    // The packet captures, by point (`[metrics] pcap`).
    let pcap = PyDict::new_bound(py);
    for f in res.pcap {
        pcap.set_item(f.name, PyBytes::new_bound(py, &f.bytes))?;
    }
    out.set_item("pcap", pcap)?;
    Ok(out.into())
}

fn simulate(
    py: Python<'_>,
    text: &str,
    toml: bool,
    seed: Option<u64>,
    progress: bool,
) -> PyResult<PyObject> {
    let sc = parse(text, toml)?;
    let json = sc.to_json();
    let d = run(py, sc, seed, progress)?;
    d.bind(py)
        .downcast::<PyDict>()?
        .set_item("scenario", json)?;
    Ok(d)
}

/// Simulates a scenario given as JSON text.
#[pyfunction]
#[pyo3(signature = (text, seed=None, progress=false))]
fn simulate_json(
    py: Python<'_>,
    text: &str,
    seed: Option<u64>,
    progress: bool,
) -> PyResult<PyObject> {
    simulate(py, text, false, seed, progress)
}

/// Simulates a scenario given as TOML text.
#[pyfunction]
#[pyo3(signature = (text, seed=None, progress=false))]
fn simulate_toml(
    py: Python<'_>,
    text: &str,
    seed: Option<u64>,
    progress: bool,
) -> PyResult<PyObject> {
    simulate(py, text, true, seed, progress)
}

/// Validates a JSON scenario; returns it normalized as JSON.
#[pyfunction]
fn validate_json(text: &str) -> PyResult<String> {
    Ok(parse(text, false)?.to_json())
}

/// Validates a TOML scenario; returns it normalized as JSON.
#[pyfunction]
fn validate_toml(text: &str) -> PyResult<String> {
    Ok(parse(text, true)?.to_json())
}

/// What a scenario will cost, before it runs (the description layer's
/// estimate, docs/scenario.md "Limits"), as JSON; a scenario beyond its
/// `[limits]` raises ScenarioError naming the limit.
fn estimate(text: &str, toml: bool) -> PyResult<String> {
    let sc = parse(text, toml)?;
    let r = sc.resolve().map_err(scenario_err)?;
    Ok(r.estimate.to_json())
}

#[pyfunction]
fn estimate_json(text: &str) -> PyResult<String> {
    estimate(text, false)
}

#[pyfunction]
fn estimate_toml(text: &str) -> PyResult<String> {
    estimate(text, true)
}

/// Checks TOML syntax with a parser that bounds nesting (arrays, inline
/// tables and dotted keys, 80 levels), so that Python's own TOML parser
/// never sees a file that would recurse or take quadratic time in it.
#[pyfunction]
fn check_toml(text: &str) -> PyResult<()> {
    match text.parse::<toml::Table>() {
        Ok(_) => Ok(()),
        Err(e) => {
            let mut msg = one_line(e.message());
            if msg.contains("number too large to fit in target type") {
                msg = TOML_INTEGER_RANGE.to_string();
                // Name the key the parser's span points into, when it can be found.
                if let Some(key) = e.span().and_then(|sp| toml_key_at(text, sp.start)) {
                    msg = format!("{key}: {msg}");
                }
            }
            if let Some(span) = e.span() {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                msg = format!("{msg} (line {line})");
            }
            Err(ScenarioError::new_err(msg))
        }
    }
}

/// Picoseconds in a duration such as "200ms": the scenario format's own
/// parser, so Python reads unit strings exactly as validation does.
#[pyfunction]
fn parse_time_ps(text: &str) -> PyResult<u64> {
    Time::parse(text)
        .map(|t| t.0)
        .map_err(PyValueError::new_err)
}

/// Bytes in a size such as "64KiB".
#[pyfunction]
fn parse_size_bytes(text: &str) -> PyResult<u64> {
    Bytes::parse(text)
        .map(|b| b.get())
        .map_err(PyValueError::new_err)
}

/// Bits per second in a rate such as "1Gbps".
#[pyfunction]
fn parse_rate_bps(text: &str) -> PyResult<u64> {
    BitsPerSec::parse(text)
        .map(|r| r.0)
        .map_err(PyValueError::new_err)
}

/// A buffer limit as `[queue] limit` takes it: (count, "packets") or
/// (bytes, "bytes").
#[pyfunction]
fn parse_buffer(text: &str) -> PyResult<(u64, &'static str)> {
    match BufferLimit::parse(text).map_err(PyValueError::new_err)? {
        BufferLimit::Bytes(b) => Ok((b.get(), "bytes")),
        BufferLimit::Packets(n) => Ok((n as u64, "packets")),
    }
}

/// The timer resolution `resolution = "auto"` picks for a min RTO on a
/// jiffy clock of `hz`: "jiffy", or the fine resolution ("1us") below one
/// tick (`spec::tcp::auto_clock`, the rule's one home).
#[pyfunction]
fn auto_resolution(min_rto: &str, hz: u32) -> PyResult<String> {
    let rto = Time::parse(min_rto).map_err(PyValueError::new_err)?;
    if !(1..=1_000_000).contains(&hz) {
        return Err(PyValueError::new_err(format!(
            "hz: {hz} is out of range; expected 1 to 1000000 ticks per second"
        )));
    }
    Ok(match auto_clock(rto, Clock::Jiffies { hz }) {
        Clock::Jiffies { .. } => "jiffy".to_string(),
        Clock::Granular { tick } => tick.to_string(),
    })
}

/// Lowers a scenario for the namespace backend on a machine (its JSON:
/// `hz`, `congestion_controls`, `qdiscs`); returns the plan as JSON, its
/// warnings inside (docs/emulation.md). A refusal is a ScenarioError.
fn lower_netns(text: &str, toml: bool, machine: &str) -> PyResult<String> {
    use fairlab_sim::spec::lower::netns;
    let m = netns::Machine::from_json(machine).map_err(scenario_err)?;
    let sc = parse(text, toml)?;
    Ok(netns::lower(&sc, &m).map_err(scenario_err)?.to_json())
}

#[pyfunction]
fn lower_netns_toml(text: &str, machine: &str) -> PyResult<String> {
    lower_netns(text, true, machine)
}

#[pyfunction]
fn lower_netns_json(text: &str, machine: &str) -> PyResult<String> {
    lower_netns(text, false, machine)
}

/// Lowers a scenario for the ns-2 backend; returns the plan as JSON (its
/// warnings inside) that `python/fairlab/ns2/` writes as a Tcl script. A
/// refusal is a ScenarioError.
fn lower_ns2(text: &str, toml: bool) -> PyResult<String> {
    use fairlab_sim::spec::lower::ns2;
    let sc = parse(text, toml)?;
    Ok(ns2::lower(&sc).map_err(scenario_err)?.to_json())
}

#[pyfunction]
fn lower_ns2_toml(text: &str) -> PyResult<String> {
    lower_ns2(text, true)
}

#[pyfunction]
fn lower_ns2_json(text: &str) -> PyResult<String> {
    lower_ns2(text, false)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    alloc::use_huge_pages();
    // A bug must surface as a Python exception, not a Rust backtrace on stderr.
    panic::set_hook(Box::new(|_| {}));
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add_class::<ColumnBuffer>()?;
    m.add_function(wrap_pyfunction!(simulate_json, m)?)?;
    radon::register(m)?;
    m.add_function(wrap_pyfunction!(simulate_toml, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_toml, m)?)?;
    m.add_function(wrap_pyfunction!(parse_time_ps, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(parse_buffer, m)?)?;
    m.add_function(wrap_pyfunction!(auto_resolution, m)?)?;
    m.add_function(wrap_pyfunction!(validate_toml, m)?)?;
    m.add_function(wrap_pyfunction!(lower_netns_toml, m)?)?;
    m.add_function(wrap_pyfunction!(lower_netns_json, m)?)?;
    m.add_function(wrap_pyfunction!(lower_ns2_toml, m)?)?;
    m.add_function(wrap_pyfunction!(lower_ns2_json, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_json, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_toml, m)?)?;
    Ok(())
}

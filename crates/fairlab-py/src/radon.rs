//! `fairlab._core.radon_*`: the socket agent of Radon (crates/fairlab-radon)
//! and its decision replay through the simulator. JSON in, JSON out; runs
//! hold no GIL and take it every 50 ms to run Python's signal handlers, so
//! Ctrl-C stops a run within that (its sockets closed as it returns) and is
//! raised here as KeyboardInterrupt.

use fairlab_radon::Error;
use fairlab_radon_core::trace::{compare, StreamTrace};
use fairlab_sim::transport::RadonFlow;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::time::{Duration, Instant};

create_exception!(
    fairlab._core,
    RadonError,
    PyRuntimeError,
    "A Radon agent could not run: port in use, peer unreachable, refused, another version, a missing capability; one line."
);

const SIGNAL_CHECK: Duration = Duration::from_millis(50);

fn to_py(e: Error, raised: Option<PyErr>) -> PyErr {
    match (e, raised) {
        (Error::Interrupted, Some(py)) => py,
        (Error::Config(s), _) => PyValueError::new_err(s),
        (e, _) => RadonError::new_err(e.to_string()),
    }
}

/// Runs `f` without the GIL, its cancel check running the signal handlers.
fn without_gil<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(&mut dyn FnMut() -> bool) -> Result<T, Error> + Send,
) -> PyResult<T> {
    let mut raised: Option<PyErr> = None;
    let out = py.allow_threads(|| {
        let mut checked = Instant::now();
        let mut cancelled = || {
            if checked.elapsed() < SIGNAL_CHECK {
                return false;
            }
            checked = Instant::now();
            match Python::with_gil(|py| py.check_signals()) {
                Ok(()) => false,
                Err(e) => {
                    raised = Some(e);
                    true
                }
            }
        };
        f(&mut cancelled)
    });
    out.map_err(|e| to_py(e, raised))
}

/// Runs the receiver agent; `on_session(line)` is called as each session
/// ends. Returns `{"sessions": [{listener, peer, streams, received, lost,
/// feedback_sent, malformed, line}, ...]}` as JSON.
#[pyfunction]
#[pyo3(signature = (config_json, on_session=None))]
pub fn radon_recv(
    py: Python<'_>,
    config_json: &str,
    on_session: Option<PyObject>,
) -> PyResult<String> {
    without_gil(py, |cancelled| {
        let mut report = |line: &str| {
            if let Some(cb) = on_session.as_ref() {
                Python::with_gil(|py| {
                    if let Err(e) = cb.call1(py, (line,)) {
                        e.print(py);
                    }
                });
            }
        };
        fairlab_radon::recv_json(config_json, cancelled, &mut report)
    })
}

/// Runs the sender agent; returns its tables as JSON columns:
/// `{"streams": {col: [...]}, "radon_series": {...}, "pacing": {...},
/// "machine": {...}, "trace": [...] (when asked)}`.
#[pyfunction]
pub fn radon_send(py: Python<'_>, config_json: &str) -> PyResult<String> {
    without_gil(py, |cancelled| {
        fairlab_radon::send_json(config_json, cancelled)
    })
}

/// Measures the machine (timestamp noise, pacing lateness, CPU per
/// datagram); returns the figures as JSON.
#[pyfunction]
pub fn radon_calibrate(py: Python<'_>, config_json: &str) -> PyResult<String> {
    without_gil(py, |_| fairlab_radon::calibrate_json(config_json))
}

/// The warning for datagrams `spacing_us` apart on the calibrated machine,
/// or None when it keeps that spacing.
#[pyfunction]
pub fn radon_spacing_warning(calibration_json: &str, spacing_us: f64) -> PyResult<Option<String>> {
    fairlab_radon::spacing_warning_json(calibration_json, spacing_us).map_err(|e| to_py(e, None))
}

/// Replays decision traces (a list of stream traces, or one, as the
/// sender's `trace` table gives them) through the simulator's Radon driver
/// and returns the mismatches as a JSON list (empty: the same decisions).
#[pyfunction]
pub fn radon_replay(trace_json: &str) -> PyResult<String> {
    let value: serde_json::Value = serde_json::from_str(trace_json)
        .map_err(|e| PyValueError::new_err(format!("trace: not JSON: {e}")))?;
    let list = match value {
        serde_json::Value::Array(v) => v,
        one => vec![one],
    };
    let mut out = Vec::new();
    for (i, v) in list.into_iter().enumerate() {
        let t: StreamTrace = serde_json::from_value(v)
            .map_err(|e| PyValueError::new_err(format!("trace[{i}]: {e}")))?;
        let sim = RadonFlow::replay(&t);
        out.extend(compare(
            t.flow_id,
            "receiver",
            &t.receiver_events,
            &sim.receiver_events,
        ));
        out.extend(compare(
            t.flow_id,
            "sender",
            &t.sender_events,
            &sim.sender_events,
        ));
    }
    Ok(serde_json::to_string(&out).expect("plain data"))
}

/// Registers the functions and the error class.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RadonError", m.py().get_type_bound::<RadonError>())?;
    m.add_function(wrap_pyfunction!(radon_recv, m)?)?;
    m.add_function(wrap_pyfunction!(radon_send, m)?)?;
    m.add_function(wrap_pyfunction!(radon_calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(radon_spacing_warning, m)?)?;
    m.add_function(wrap_pyfunction!(radon_replay, m)?)?;
    Ok(())
}

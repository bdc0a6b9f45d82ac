//! What gsi says about the engines, in the words of its flags: the library reports typed
//! notices and errors, and this module words them (and adds the advice) for the user.

use gsi_core::{Error, NoGpu, Notice};

/// The line for a notice an engine gave.
pub fn notice(notice: &Notice) -> String {
    match notice {
        Notice::NoGpu(err) => format!("no usable GPU ({err}); using the CPU engine"),
        Notice::IndexNotOnGpu(err) => {
            format!("the GPU cannot hold this graph's index ({err}); using the CPU engine")
        }
        Notice::PartitionsPerQuery { pcsr_bytes } => format!(
            "the PCSR index ({} MiB) does not fit on the GPU beside the join's buffers; each query copies only the partitions it reads",
            pcsr_bytes >> 20
        ),
        other => format!("{other:?}"),
    }
}

/// What to try when `err` stopped the GPU engine, if gsi knows better.
pub fn advice(err: &Error) -> Option<&'static str> {
    match err {
        Error::NoGpu(NoGpu::NoSuchDevice { .. }) => Some("choose one with --device N"),
        Error::NoGpu(_) | Error::QueryTooWide { .. } | Error::GpuIndexTooLarge { .. } => {
            Some("use --engine cpu or auto")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_errors_get_advice_and_notices_a_line() {
        let wide = Error::QueryTooWide {
            vertices: 40,
            max: 32,
        };
        assert_eq!(advice(&wide), Some("use --engine cpu or auto"));
        let missing = Error::NoGpu(NoGpu::NoSuchDevice {
            ordinal: 3,
            count: 1,
        });
        assert_eq!(advice(&missing), Some("choose one with --device N"));
        assert_eq!(advice(&Error::EmptyQuery), None);
        let line = notice(&Notice::PartitionsPerQuery {
            pcsr_bytes: 3 << 20,
        });
        assert!(line.starts_with("the PCSR index (3 MiB)"), "{line}");
        let line = notice(&Notice::NoGpu(Error::NoGpu(NoGpu::NoDriver)));
        assert!(
            line.starts_with("no usable GPU (no NVIDIA driver found"),
            "{line}"
        );
    }
}

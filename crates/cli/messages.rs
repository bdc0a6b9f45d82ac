//! What gsi adds to the engines' errors, in the words of its flags: the library reports
//! typed errors (and words its notices), and this module gives the advice.

use gsi_core::{Error, NoGpu};

/// What to try when `err` stopped the GPU engine, if gsi knows better.
pub fn advice(err: &Error) -> Option<&'static str> {
    match err {
        Error::NoGpu(NoGpu::NoSuchDevice { .. }) => Some("choose one with --device N"),
        Error::NoGpu(_) | Error::GpuIndexTooLarge { .. } => Some("use --engine cpu or auto"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gsi_core::Notice;

    #[test]
    fn engine_errors_get_advice_and_notices_a_line() {
        let large = Error::GpuIndexTooLarge {
            entries: 1 << 33,
            words: 1 << 34,
        };
        assert_eq!(advice(&large), Some("use --engine cpu or auto"));
        let missing = Error::NoGpu(NoGpu::NoSuchDevice {
            ordinal: 3,
            count: 1,
        });
        assert_eq!(advice(&missing), Some("choose one with --device N"));
        assert_eq!(advice(&Error::EmptyQuery), None);
        let line = Notice::PartitionsPerQuery {
            pcsr_bytes: 3 << 20,
        }
        .to_string();
        assert!(line.starts_with("the PCSR index (3 MiB)"), "{line}");
        let line = Notice::NoGpu(Error::NoGpu(NoGpu::NoDriver)).to_string();
        assert!(
            line.starts_with("no usable GPU (no NVIDIA driver found"),
            "{line}"
        );
    }
}

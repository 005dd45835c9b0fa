//! h2load's number formatting, reproduced so its text output can be read
//! by the same scripts.

/// Two decimals, rounded (nghttp2's `util::dtos`).
pub fn dtos(value: f64) -> String {
    format!("{value:.2}")
}

/// A duration given in microseconds: `46us`, `1.17ms`, `3.00s` (nghttp2's `util::format_duration`).
pub fn duration_us(us: f64) -> String {
    if us >= 1_000_000.0 {
        format!("{}s", dtos(us / 1_000_000.0))
    } else if us >= 1_000.0 {
        format!("{}ms", dtos(us / 1_000.0))
    } else {
        format!("{}us", us.max(0.0) as u64)
    }
}

/// Bytes with a binary unit prefix: `78.60K`, `3.69M`, `0` (nghttp2's `util::utos_funit`).
pub fn funit(n: f64) -> String {
    const UNITS: [(f64, &str); 3] = [
        (1024.0 * 1024.0 * 1024.0, "G"),
        (1024.0 * 1024.0, "M"),
        (1024.0, "K"),
    ];
    for (size, unit) in UNITS {
        if n >= size {
            return format!("{}{unit}", dtos(n / size));
        }
    }
    format!("{}", n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_h2load() {
        assert_eq!(duration_us(46.7), "46us");
        assert_eq!(duration_us(1170.0), "1.17ms");
        assert_eq!(duration_us(20_780.0), "20.78ms");
        assert_eq!(duration_us(3_000_000.0), "3.00s");
        assert_eq!(funit(80490.0), "78.60K");
        assert_eq!(funit(0.0), "0");
        assert_eq!(funit(3.69 * 1024.0 * 1024.0), "3.69M");
        assert_eq!(dtos(95.3512), "95.35");
    }
}

//! The cells and columns the tables share.

use crate::controller::clock::Offset;
use loadgen_report::units::duration_us;
use std::fmt::Write;

/// `offset ±half the round trip`, as the tables show a worker's clock.
pub fn clock_cell(offset: &Offset) -> String {
    format!(
        "{} ±{}",
        signed_ms(offset.offset_us),
        duration_us(offset.round_trip.as_micros() as f64 / 2.0)
    )
}

/// Rows as aligned columns, two spaces in: the first `left` columns
/// aligned left, the others right. A shorter row (a lost worker's reason)
/// spans the columns after its last cell.
pub fn aligned(rows: &[Vec<String>], left: usize) -> String {
    let columns = rows[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter(|r| r.len() == columns)
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| match c {
                _ if c < left => format!("{cell:<w$}", w = widths[c]),
                _ if row.len() < columns => cell.clone(),
                _ => format!("{cell:>w$}", w = widths[c]),
            })
            .collect();
        let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
    }
    out
}

/// `+1.234ms`, `-0.020ms`: microseconds as signed milliseconds.
pub fn signed_ms(us: i64) -> String {
    let sign = if us < 0 { '-' } else { '+' };
    format!("{sign}{:.3}ms", us.unsigned_abs() as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_milliseconds() {
        assert_eq!(signed_ms(1234), "+1.234ms");
        assert_eq!(signed_ms(-20), "-0.020ms");
        assert_eq!(signed_ms(0), "+0.000ms");
    }
}

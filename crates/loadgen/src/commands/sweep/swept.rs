//! The swept flag of `loadgen sweep`: `-c`, `-m` or `--rate` given a list
//! (`2,4,6,8`) or a range (`1000:20000:1000`) instead of one value. These
//! keep the benchmark's spelling, so they are taken out of the command line
//! before it is parsed as a benchmark's, and each point sets its value.

use loadgen_report::sweep::Dimension;
use std::ffi::OsString;

/// The swept flags found, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Swept {
    pub found: Vec<(Dimension, String)>,
}

/// The flags of each dimension: (short, long).
const FLAGS: [(Dimension, &str, &str); 3] = [
    (Dimension::Clients, "-c", "--clients"),
    (Dimension::Streams, "-m", "--max-concurrent-streams"),
    (Dimension::Rate, "", "--rate"),
];

fn is_swept_value(value: &str) -> bool {
    value.contains([',', ':'])
}

/// Splits `loadgen sweep …`'s arguments into the swept flags and the rest;
/// any other command line comes back unchanged.
pub fn take_swept(argv: Vec<OsString>) -> (Vec<OsString>, Swept) {
    let mut swept = Swept::default();
    if argv.get(1).and_then(|a| a.to_str()) != Some("sweep") {
        return (argv, swept);
    }
    let mut rest = Vec::with_capacity(argv.len());
    let mut args = argv.into_iter().peekable();
    while let Some(arg) = args.next() {
        let Some(text) = arg.to_str() else {
            rest.push(arg);
            continue;
        };
        if text == "--" {
            rest.push(arg);
            rest.extend(args.by_ref());
            break;
        }
        let mut taken = None;
        for (dimension, short, long) in FLAGS {
            let inline = match text.strip_prefix(long).and_then(|v| v.strip_prefix('=')) {
                Some(value) => Some(value),
                None if !short.is_empty() && text.len() > 2 => text
                    .strip_prefix(short)
                    .map(|v| v.strip_prefix('=').unwrap_or(v)),
                None => None,
            };
            if let Some(value) = inline.filter(|v| is_swept_value(v)) {
                taken = Some((dimension, value.to_string(), false));
                break;
            }
            if text == long || (!short.is_empty() && text == short) {
                let next = args.peek().and_then(|v| v.to_str()).map(str::to_string);
                if let Some(value) = next.filter(|v| is_swept_value(v)) {
                    taken = Some((dimension, value, true));
                    break;
                }
            }
        }
        match taken {
            Some((dimension, value, separate)) => {
                if separate {
                    args.next();
                }
                swept.found.push((dimension, value));
            }
            None => rest.push(arg),
        }
    }
    (rest, swept)
}

/// The values of a list (`2,4,6`) or a range `LOW:HIGH:STEP`.
pub fn values(flag: &str, text: &str) -> Result<Vec<f64>, String> {
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("{flag}: '{s}' is not a number (in '{text}')"))
    };
    if text.contains(':') {
        let parts: Vec<&str> = text.split(':').collect();
        let [low, high, step] = parts[..] else {
            return Err(format!(
                "{flag}: '{text}' is not LOW:HIGH:STEP (LOW:HIGH searches with --slo)"
            ));
        };
        let (low, high, step) = (number(low)?, number(high)?, number(step)?);
        if step <= 0.0 || high < low {
            return Err(format!(
                "{flag}: '{text}' needs LOW <= HIGH and a STEP greater than zero"
            ));
        }
        let count = ((high - low) / step + 1e-9).floor() as usize + 1;
        if count > 1000 {
            return Err(format!(
                "{flag}: '{text}' makes {count} points; at most 1000"
            ));
        }
        return Ok((0..count).map(|i| low + step * i as f64).collect());
    }
    text.split(',').map(number).collect()
}

/// `LOW:HIGH` of a knee search.
pub fn bounds(text: &str) -> Result<(f64, f64), String> {
    let bad =
        || format!("--rate: '{text}' is not LOW:HIGH, as in 100:5000, for a search with --slo");
    let (low, high) = text.split_once(':').ok_or_else(bad)?;
    let low: f64 = low.trim().parse().map_err(|_| bad())?;
    let high: f64 = high.trim().parse().map_err(|_| bad())?;
    if !(low > 0.0 && high > low && high.is_finite()) {
        return Err(format!(
            "--rate: '{text}' needs 0 < LOW < HIGH to search between them"
        ));
    }
    Ok((low, high))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(args: &[&str]) -> (Vec<String>, Vec<(Dimension, String)>) {
        let argv = args.iter().map(OsString::from).collect();
        let (rest, swept) = take_swept(argv);
        let rest = rest.into_iter().map(|a| a.into_string().unwrap()).collect();
        (rest, swept.found)
    }

    #[test]
    fn lists_and_ranges_are_taken_single_values_stay() {
        let (rest, found) = split(&[
            "loadgen",
            "sweep",
            "-c",
            "2,4",
            "-n",
            "100",
            "--rate=10:30:10",
            "-m",
            "4",
            "http://x/",
        ]);
        assert_eq!(
            rest,
            ["loadgen", "sweep", "-n", "100", "-m", "4", "http://x/"]
        );
        assert_eq!(
            found,
            [
                (Dimension::Clients, "2,4".to_string()),
                (Dimension::Rate, "10:30:10".to_string())
            ]
        );
        let (rest, found) = split(&["loadgen", "sweep", "-m1,2", "--clients", "8", "u"]);
        assert_eq!(rest, ["loadgen", "sweep", "--clients", "8", "u"]);
        assert_eq!(found, [(Dimension::Streams, "1,2".to_string())]);
    }

    #[test]
    fn other_commands_are_left_alone() {
        let (rest, found) = split(&["loadgen", "-c", "2,4", "u"]);
        assert_eq!(rest, ["loadgen", "-c", "2,4", "u"]);
        assert!(found.is_empty());
    }

    #[test]
    fn values_of_lists_and_ranges() {
        assert_eq!(values("-c", "2,4,6").unwrap(), [2.0, 4.0, 6.0]);
        assert_eq!(
            values("--rate", "1000:3000:1000").unwrap(),
            [1000.0, 2000.0, 3000.0]
        );
        assert!(values("--rate", "1000:3000")
            .unwrap_err()
            .contains("LOW:HIGH:STEP"));
        assert!(values("-c", "2,x")
            .unwrap_err()
            .starts_with("-c: 'x' is not a number"));
        assert_eq!(bounds("100:5000").unwrap(), (100.0, 5000.0));
        assert!(bounds("5000:100").is_err());
    }
}

//! The backup file name: `<file>.vitaecontext-backup-YYYYMMDDTHHMMSSZ`, in UTC, from a time the
//! caller read off the clock.

/// `YYYYMMDDTHHMMSSZ` for a number of seconds since the Unix epoch.
pub fn utc_stamp(unix_secs: u64) -> String {
    let days = (unix_secs / 86_400) as i64;
    let secs = unix_secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The suffix added to a configuration file's name for its backup.
pub fn backup_suffix(unix_secs: u64) -> String {
    format!(".vitaecontext-backup-{}", utc_stamp(unix_secs))
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_known_instants() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        // 2000-02-29 is a leap day of a century divisible by 400.
        assert_eq!(utc_stamp(951_782_400 + 3_661), "20000229T010101Z");
        assert_eq!(utc_stamp(1_798_761_599), "20261231T235959Z");
        assert_eq!(backup_suffix(0), ".vitaecontext-backup-19700101T000000Z");
    }
}

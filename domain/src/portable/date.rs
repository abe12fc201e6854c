//! Dates as careers are written: a year, a month of a year, or a day. Read from LinkedIn's
//! forms ("Jan 2020", "2020", "Mar 15, 2021") and JSON Resume's ISO 8601 ("2020-01",
//! "2020-01-15"); always written as ISO (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`).

use std::fmt;

/// A date known to the year, the month or the day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartialDate {
    pub year: u16,
    pub month: Option<u8>,
    /// Only with a month.
    pub day: Option<u8>,
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_NAMES: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

fn days_in(year: u16, month: u8) -> u8 {
    match month {
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl PartialDate {
    /// A checked date: year 1000-2999 (JSON Resume's pattern), month 1-12, a day of that month.
    pub fn new(year: u16, month: Option<u8>, day: Option<u8>) -> Option<Self> {
        if !(1000..=2999).contains(&year) {
            return None;
        }
        match (month, day) {
            (None, Some(_)) => None,
            (Some(m), _) if !(1..=12).contains(&m) => None,
            (Some(m), Some(d)) if d == 0 || d > days_in(year, m) => None,
            _ => Some(Self { year, month, day }),
        }
    }

    /// ISO 8601 as JSON Resume writes it: `2020`, `2020-01` or `2020-01-15`.
    pub fn parse_iso(text: &str) -> Option<Self> {
        let t = text.trim();
        let mut parts = t.split('-');
        let year = parts.next().filter(|y| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()))?;
        let two = |p: Option<&str>| -> Option<Option<u8>> {
            match p {
                None => Some(None),
                Some(p) if p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()) => p.parse().ok().map(Some),
                Some(_) => None,
            }
        };
        let month = two(parts.next())?;
        let day = two(parts.next())?;
        if parts.next().is_some() {
            return None;
        }
        Self::new(year.parse().ok()?, month, day)
    }

    /// The forms LinkedIn's export uses (and ISO): `Jan 2020`, `January 2020`, `2020`,
    /// `Mar 15, 2021`, `15 Mar 2021`, `03/2021`, `2021-03`, `2021-03-15`.
    pub fn parse_loose(text: &str) -> Option<Self> {
        let t = text.trim();
        if let Some(d) = Self::parse_iso(t) {
            return Some(d);
        }
        let words: Vec<&str> = t.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
        let month_of = |w: &str| {
            let w = w.trim_end_matches('.').to_ascii_lowercase();
            (w.len() >= 3).then(|| MONTHS.iter().position(|m| w.starts_with(m)).map(|i| i as u8 + 1)).flatten()
        };
        let year_of = |w: &str| (w.len() == 4).then(|| w.parse::<u16>().ok()).flatten();
        let day_of = |w: &str| (w.len() <= 2).then(|| w.parse::<u8>().ok()).flatten();
        match words.as_slice() {
            [m, y] => {
                if let (Some(m), Some(y)) = (month_of(m), year_of(y)) {
                    return Self::new(y, Some(m), None);
                }
                None
            }
            [m, d, y] => match (month_of(m), day_of(d), year_of(y)) {
                (Some(m), Some(d), Some(y)) => Self::new(y, Some(m), Some(d)),
                _ => match (day_of(m), month_of(d), year_of(y)) {
                    (Some(d), Some(m), Some(y)) => Self::new(y, Some(m), Some(d)),
                    _ => None,
                },
            },
            [one] => {
                let parts: Vec<&str> = one.split('/').collect();
                match parts.as_slice() {
                    [m, y] => Self::new(year_of(y)?, Some(day_of(m)?), None),
                    [m, d, y] => Self::new(year_of(y)?, Some(day_of(m)?), Some(day_of(d)?)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// As a person reads it: `Jan 2020`, `2020`, `15 Jan 2020`.
    pub fn human(&self) -> String {
        match (self.month, self.day) {
            (Some(m), Some(d)) => format!("{d} {} {}", MONTH_NAMES[usize::from(m) - 1], self.year),
            (Some(m), None) => format!("{} {}", MONTH_NAMES[usize::from(m) - 1], self.year),
            _ => self.year.to_string(),
        }
    }
}

impl fmt::Display for PartialDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        if let Some(m) = self.month {
            write!(f, "-{m:02}")?;
        }
        if let Some(d) = self.day {
            write!(f, "-{d:02}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linkedin_forms_read_as_their_iso_dates() {
        for (text, iso) in [
            ("Jan 2020", "2020-01"),
            ("September 2019", "2019-09"),
            ("2020", "2020"),
            ("Mar 15, 2021", "2021-03-15"),
            ("15 Mar 2021", "2021-03-15"),
            ("03/2021", "2021-03"),
            ("2021-03-15", "2021-03-15"),
        ] {
            assert_eq!(PartialDate::parse_loose(text).map(|d| d.to_string()).as_deref(), Some(iso), "{text}");
        }
    }

    #[test]
    fn impossible_dates_are_refused() {
        for text in ["Feb 30, 2021", "2021-13", "0999", "Foo 2020", "2020-1", "", "31/2020"] {
            assert_eq!(PartialDate::parse_loose(text), None, "{text}");
        }
        assert!(PartialDate::parse_iso("2024-02-29").is_some());
        assert!(PartialDate::parse_iso("2023-02-29").is_none());
    }
}

//! SMF's printed times. Guests see UTC on Bitcointalk: `June 10, 2011, 03:04:56 PM`, and for
//! the current day `Today at 03:04:56 PM` (`Yesterday at` where the forum enables it), which
//! is resolved against the date the page prints in its header.

use chrono::{DateTime, Days, NaiveDate, NaiveDateTime, NaiveTime, Utc};

use super::ParseError;

const FULL_FORMAT: &str = "%B %d, %Y, %I:%M:%S %p";
const TIME_FORMAT: &str = "%I:%M:%S %p";

/// Reads one printed time (whitespace already collapsed). `clock` is the page's header
/// clock; a relative time on a page without one is a layout error.
pub(crate) fn parse_time(
    text: &str,
    clock: Option<DateTime<Utc>>,
) -> Result<DateTime<Utc>, ParseError> {
    let text = text.trim();
    let relative = [("Today at ", 0), ("Yesterday at ", 1)]
        .into_iter()
        .find_map(|(prefix, days)| text.strip_prefix(prefix).map(|rest| (rest, days)));
    let Some((time, days_back)) = relative else {
        return NaiveDateTime::parse_from_str(text, FULL_FORMAT)
            .map(|at| at.and_utc())
            .map_err(|_| ParseError::layout(format!("unreadable time {text:?}")));
    };
    let Some(clock) = clock else {
        return Err(ParseError::layout(format!(
            "relative time {text:?} on a page without a header clock"
        )));
    };
    let time = NaiveTime::parse_from_str(time, TIME_FORMAT)
        .map_err(|_| ParseError::layout(format!("unreadable time {text:?}")))?;
    let day: NaiveDate = clock
        .date_naive()
        .checked_sub_days(Days::new(days_back))
        .ok_or_else(|| ParseError::layout(format!("time {text:?} out of range")))?;
    Ok(day.and_time(time).and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .expect("test times are valid")
            .to_utc()
    }

    #[test]
    fn absolute_and_relative_times() {
        let clock = Some(at("2014-07-31T22:26:29Z"));
        assert_eq!(
            parse_time("June 10, 2011, 03:04:56 PM", None),
            Ok(at("2011-06-10T15:04:56Z"))
        );
        assert_eq!(
            parse_time("December 12, 2009, 12:11:37 AM", None),
            Ok(at("2009-12-12T00:11:37Z"))
        );
        assert_eq!(
            parse_time("Today at 09:03:11 PM", clock),
            Ok(at("2014-07-31T21:03:11Z"))
        );
        assert_eq!(
            parse_time("Yesterday at 12:00:00 PM", clock),
            Ok(at("2014-07-30T12:00:00Z"))
        );
    }

    #[test]
    fn unreadable_times_are_layout_errors() {
        for bad in [
            "",
            "June 31, 2011, 03:04:56 PM",
            "Today at 25:00:00 PM",
            "soon",
        ] {
            assert!(
                matches!(
                    parse_time(
                        bad,
                        Some(forumdex_clock::Clock::now(&forumdex_clock::SystemClock))
                    ),
                    Err(ParseError::Layout(_))
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            parse_time("Today at 09:03:11 PM", None),
            Err(ParseError::Layout(_))
        ));
    }
}

//! robots.txt as RFC 9309 reads it: what an answer means for our product token, and how
//! long it holds.

use std::time::Duration;

use chrono::{DateTime, Utc};
use texting_robots::Robot;

use crate::state::RobotsRecord;

/// How long a robots.txt answer (2xx or 4xx) holds before it is read again.
pub const ROBOTS_MAX_AGE: Duration = Duration::from_secs(24 * 3600);
/// How long "unreachable" (5xx, a network failure, unparseable) holds before another try.
pub const ROBOTS_RETRY_AFTER: Duration = Duration::from_secs(600);

/// The rules in force for the forum.
#[derive(Debug)]
pub(crate) struct RobotsRules {
    rules: Rules,
    /// Until when they hold.
    pub(crate) expires_at: DateTime<Utc>,
}

#[derive(Debug)]
enum Rules {
    /// A 4xx: no robots.txt, everything allowed.
    AllowAll,
    /// Unreachable: nothing allowed until it is read.
    Unreachable,
    /// A parsed robots.txt.
    Parsed(Robot),
}

impl RobotsRules {
    /// The rules of an answer for `token`: 2xx parsed; other 4xx allow all (RFC 9309
    /// 2.3.1.3); 5xx, 429, an unfollowed redirect, no response or an unparseable file
    /// disallow all for [`ROBOTS_RETRY_AFTER`] (2.3.1.4).
    pub(crate) fn from_record(record: &RobotsRecord, token: &str) -> Self {
        let rules = match record.status {
            Some(200..=299) => match Robot::new(token, &record.body) {
                Ok(robot) => Rules::Parsed(robot),
                Err(err) => {
                    tracing::warn!(error = %err, "robots.txt does not parse; crawling nothing until it is read again");
                    Rules::Unreachable
                }
            },
            Some(status) if (400..=499).contains(&status) && status != 429 => Rules::AllowAll,
            _ => Rules::Unreachable,
        };
        let max_age = match rules {
            Rules::Unreachable => ROBOTS_RETRY_AFTER,
            Rules::AllowAll | Rules::Parsed(_) => ROBOTS_MAX_AGE,
        };
        let max_age = chrono::Duration::from_std(max_age).expect("a small constant");
        Self {
            rules,
            expires_at: record.fetched_at + max_age,
        }
    }

    /// Whether robots.txt could not be read (nothing is allowed until `expires_at`).
    pub(crate) fn unreachable(&self) -> bool {
        matches!(self.rules, Rules::Unreachable)
    }

    /// Whether `path_and_query` (`/index.php?topic=1`) may be fetched.
    pub(crate) fn allowed(&self, path_and_query: &str) -> bool {
        match &self.rules {
            Rules::AllowAll => true,
            Rules::Unreachable => false,
            Rules::Parsed(robot) => robot.allowed(path_and_query),
        }
    }

    /// The `Crawl-delay` for our token, when one is given.
    pub(crate) fn crawl_delay(&self) -> Option<Duration> {
        match &self.rules {
            Rules::Parsed(robot) => robot
                .delay
                .and_then(|seconds| Duration::try_from_secs_f32(seconds).ok()),
            Rules::AllowAll | Rules::Unreachable => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(status: Option<u16>, body: &str) -> RobotsRules {
        let record = RobotsRecord {
            origin: "http://forum.test".into(),
            fetched_at: DateTime::UNIX_EPOCH,
            status,
            body: body.as_bytes().to_vec(),
        };
        RobotsRules::from_record(&record, "ExampleBot")
    }

    #[test]
    fn a_robots_file_is_obeyed_for_our_token() {
        let body = "User-agent: *\nDisallow: /\n\nUser-agent: examplebot\nDisallow: /index.php?action=search\nCrawl-delay: 5\n";
        let robots = rules(Some(200), body);
        assert!(robots.allowed("/index.php?topic=1.0"));
        assert!(!robots.allowed("/index.php?action=search;q=x"));
        assert_eq!(robots.crawl_delay(), Some(Duration::from_secs(5)));
        assert_eq!(
            robots.expires_at,
            DateTime::UNIX_EPOCH + chrono::Duration::hours(24)
        );
    }

    #[test]
    fn missing_robots_allows_all_and_unreachable_disallows_all() {
        assert!(rules(Some(404), "").allowed("/anything"));
        assert!(rules(Some(403), "").allowed("/anything"));
        for status in [Some(500), Some(503), Some(429), Some(301), None] {
            let robots = rules(status, "");
            assert!(robots.unreachable(), "{status:?}");
            assert!(!robots.allowed("/anything"), "{status:?}");
            assert_eq!(
                robots.expires_at,
                DateTime::UNIX_EPOCH + chrono::Duration::minutes(10)
            );
        }
    }
}

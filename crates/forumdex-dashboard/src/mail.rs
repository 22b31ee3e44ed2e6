//! Outgoing mail (verification and password-reset links): the [`Mailer`] seam, with
//! [`SmtpMailer`] (setting `smtp_url`) and [`OutboxMailer`], which writes each message as an
//! `.eml` file into `{data}/outbox/` when no SMTP server is configured (the demo and tests
//! read it). A failure is an error the page reports; there is no silent success.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use forumdex_clock::SharedClock;
use lettre::message::header::{ContentTransferEncoding, ContentType};
use lettre::message::{Body, Mailbox, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// One plain-text message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    /// The recipient's address.
    pub to: String,
    /// Subject line.
    pub subject: String,
    /// Plain-text body (links on lines of their own).
    pub body: String,
}

/// Why a message was not sent.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The message could not be built (a bad address).
    #[error("cannot build the message: {0}")]
    Build(String),
    /// The SMTP server refused or could not be reached.
    #[error("cannot send mail: {0}")]
    Send(String),
    /// The outbox folder could not be written.
    #[error("cannot write to the outbox: {0}")]
    Outbox(#[from] std::io::Error),
}

/// Sends mail.
#[async_trait::async_trait]
pub trait Mailer: Send + Sync {
    /// Sends `mail`; `Ok` only once the server (or the outbox) has it.
    async fn send(&self, mail: &Mail) -> Result<(), MailError>;
}

/// Builds the RFC 5322 message of `mail` from `from` (7-bit text so links stay whole).
fn message(from: &Mailbox, mail: &Mail) -> Result<Message, MailError> {
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|err| MailError::Build(format!("recipient: {err}")))?;
    let body = seven_bit(&mail.body).unwrap_or_else(|| Body::new(mail.body.clone()));
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(mail.subject.clone())
        .singlepart(
            SinglePart::builder()
                .header(ContentType::TEXT_PLAIN)
                .body(body),
        )
        .map_err(|err| MailError::Build(err.to_string()))
}

/// The body as 7-bit text with CRLF line ends when it is ASCII with lines under 998
/// characters (RFC 5322's limit), so links stay whole and readable in the raw message;
/// lettre's own choice would fold lines over 76 characters with quoted-printable.
fn seven_bit(text: &str) -> Option<Body> {
    let fits = text.is_ascii() && !text.contains('\0') && text.lines().all(|line| line.len() < 998);
    fits.then(|| {
        let crlf = text.lines().collect::<Vec<_>>().join("\r\n") + "\r\n";
        Body::dangerous_pre_encoded(crlf.into_bytes(), ContentTransferEncoding::SevenBit)
    })
}

/// Mail over SMTP (`smtp://host:port`, `smtps://user:pass@host`, `smtp://host?tls=required`,
/// as lettre reads them).
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl SmtpMailer {
    /// A mailer for `smtp_url`, sending as `from`.
    pub fn new(smtp_url: &str, from: Mailbox) -> Result<Self, MailError> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url)
            .map_err(|err| MailError::Build(format!("smtp_url: {err}")))?
            .build();
        Ok(Self { transport, from })
    }
}

#[async_trait::async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        let message = message(&self.from, mail)?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|err| MailError::Send(err.to_string()))
    }
}

/// Mail written as `.eml` files into a folder, newest last by name.
#[derive(Debug, Clone)]
pub struct OutboxMailer {
    dir: PathBuf,
    from: Mailbox,
    /// Names the files by when they were written.
    clock: SharedClock,
    /// Mails written by this mailer so far: orders the names of mails written at one instant.
    written: Arc<AtomicU64>,
}

impl OutboxMailer {
    /// The folder's name inside a data folder.
    pub const FOLDER: &'static str = "outbox";

    /// A mailer writing into `dir` (created on first use), sending as `from`, naming its
    /// files by `clock`.
    pub fn new(dir: impl Into<PathBuf>, from: Mailbox, clock: SharedClock) -> Self {
        Self {
            dir: dir.into(),
            from,
            clock,
            written: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

#[async_trait::async_trait]
impl Mailer for OutboxMailer {
    async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        let bytes = message(&self.from, mail)?.formatted();
        let dir = self.dir.clone();
        let written_at = self.clock.now();
        let number = self.written.fetch_add(1, Ordering::Relaxed);
        tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&dir)?;
            let name = format!(
                "{}-{:08}-{}.eml",
                written_at.format("%Y%m%dT%H%M%S%.3fZ"),
                number,
                uuid::Uuid::new_v4().simple()
            );
            let temp = dir.join(format!(".{name}.tmp"));
            std::fs::write(&temp, &bytes)?;
            std::fs::rename(&temp, dir.join(name))
        })
        .await
        .map_err(|err| MailError::Outbox(std::io::Error::other(err)))??;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_outbox_holds_one_readable_file_per_message() {
        let dir = tempfile::tempdir().unwrap();
        let from: Mailbox = "forumdex <no-reply@example.com>".parse().unwrap();
        let outbox = OutboxMailer::new(
            dir.path().join("outbox"),
            from,
            forumdex_clock::SystemClock::shared(),
        );
        let link = format!("http://127.0.0.1:8080/verify?token={}", "ab".repeat(32));
        outbox
            .send(&Mail {
                to: "dev@example.com".to_owned(),
                subject: "Confirm your address".to_owned(),
                body: format!("Open this link:\n\n{link}\n"),
            })
            .await
            .unwrap();
        let files: Vec<_> = std::fs::read_dir(outbox.dir()).unwrap().collect();
        assert_eq!(files.len(), 1);
        let text = std::fs::read_to_string(files[0].as_ref().unwrap().path()).unwrap();
        assert!(text.contains("To: dev@example.com"), "{text}");
        assert!(text.contains("Subject: Confirm your address"), "{text}");
        assert!(text.contains(&link), "the link stays whole: {text}");
        let bad = outbox
            .send(&Mail {
                to: "not an address".to_owned(),
                subject: "x".to_owned(),
                body: "x".to_owned(),
            })
            .await;
        assert!(matches!(bad, Err(MailError::Build(_))));
    }
}

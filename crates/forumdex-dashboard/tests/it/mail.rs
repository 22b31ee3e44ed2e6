//! `SmtpMailer` against a small SMTP server on a real loopback socket: what the server
//! receives (envelope, headers, the link whole on one line), and the errors of a refused
//! recipient and of a server that is not there.

use forumdex_dashboard::mail::{Mail, MailError};
use forumdex_dashboard::{Mailer, SmtpMailer};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// One message as the server took it.
#[derive(Debug)]
struct Received {
    /// The reverse path of `MAIL FROM:<...>`.
    sender: String,
    /// The forward paths of the accepted `RCPT TO:<...>`.
    recipients: Vec<String>,
    /// The message after `DATA`, dot-unstuffed, without the final `.` line.
    data: String,
}

/// How the server answers `RCPT TO`.
#[derive(Clone, Copy)]
enum Rcpt {
    Accept,
    Refuse,
}

/// A server speaking just enough RFC 5321 (no TLS, no AUTH) on `127.0.0.1:port`; every
/// message it accepts arrives on `received` before the server answers 250 to it.
struct SmtpServer {
    port: u16,
    received: mpsc::UnboundedReceiver<Received>,
}

impl SmtpServer {
    async fn start(rcpt: Rcpt) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("local addr").port();
        let (sender, received) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(session(stream, rcpt, sender.clone()));
            }
        });
        Self { port, received }
    }

    fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }
}

/// The text between `<` and `>` of a `MAIL FROM:` or `RCPT TO:` argument.
fn path(argument: &str) -> String {
    let start = argument.find('<').map_or(0, |i| i + 1);
    let end = argument[start..]
        .find('>')
        .map_or(argument.len(), |i| start + i);
    argument[start..end].to_owned()
}

/// One SMTP session: commands in, replies out, until `QUIT` or the client hangs up.
async fn session(stream: TcpStream, rcpt: Rcpt, out: mpsc::UnboundedSender<Received>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    if write
        .write_all(b"220 localhost test ESMTP\r\n")
        .await
        .is_err()
    {
        return;
    }
    let mut sender = String::new();
    let mut recipients = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        match lines.read_line(&mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let command = line.trim_end().to_owned();
        let verb = command
            .split([' ', ':'])
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let answer: &str = match verb.as_str() {
            "EHLO" => "250-localhost greets you\r\n250 HELP\r\n",
            "HELO" | "NOOP" => "250 ok\r\n",
            "RSET" => {
                sender.clear();
                recipients.clear();
                "250 ok\r\n"
            }
            "MAIL" => {
                sender = path(&command);
                "250 ok\r\n"
            }
            "RCPT" => match rcpt {
                Rcpt::Accept => {
                    recipients.push(path(&command));
                    "250 ok\r\n"
                }
                Rcpt::Refuse => "550 5.1.1 no such mailbox\r\n",
            },
            "DATA" => {
                if write.write_all(b"354 go ahead\r\n").await.is_err() {
                    return;
                }
                let mut data = String::new();
                loop {
                    line.clear();
                    match lines.read_line(&mut line).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    if line == ".\r\n" {
                        break;
                    }
                    // RFC 5321 4.5.2: a leading dot was doubled by the client.
                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                }
                let message = Received {
                    sender: std::mem::take(&mut sender),
                    recipients: std::mem::take(&mut recipients),
                    data,
                };
                if out.send(message).is_err() {
                    return;
                }
                "250 2.0.0 queued\r\n"
            }
            "QUIT" => {
                let _ = write.write_all(b"221 bye\r\n").await;
                return;
            }
            _ => "502 command not implemented\r\n",
        };
        if write.write_all(answer.as_bytes()).await.is_err() {
            return;
        }
    }
}

fn mailer(url: &str) -> SmtpMailer {
    let from: lettre::message::Mailbox = "forumdex <no-reply@example.com>"
        .parse()
        .expect("valid sender");
    SmtpMailer::new(url, from).expect("a plain smtp:// url builds a transport")
}

/// A verification mail: the link is longer than 76 characters, so it stays whole only if
/// the body is sent as 7-bit text rather than folded quoted-printable.
fn verification(link: &str) -> Mail {
    Mail {
        to: "dev@example.com".to_owned(),
        subject: "Confirm your address".to_owned(),
        body: format!("Open this link to confirm your address:\n\n{link}\n\nforumdex\n"),
    }
}

fn link() -> String {
    format!("http://127.0.0.1:8080/verify?token={}", "ab".repeat(32))
}

#[tokio::test]
async fn smtp_delivers_the_envelope_headers_and_the_whole_link() {
    let mut server = SmtpServer::start(Rcpt::Accept).await;
    let link = link();
    mailer(&server.url())
        .send(&verification(&link))
        .await
        .expect("the server accepted the message");

    let message = server.received.recv().await.expect("one message");
    assert_eq!(message.sender, "no-reply@example.com");
    assert_eq!(message.recipients, vec!["dev@example.com".to_owned()]);
    let lines: Vec<&str> = message.data.lines().collect();
    let header = |name: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
    };
    assert_eq!(
        header("Subject:"),
        Some("Confirm your address"),
        "{message:?}"
    );
    assert_eq!(header("To:"), Some("dev@example.com"), "{message:?}");
    assert_eq!(
        header("From:"),
        Some("forumdex <no-reply@example.com>"),
        "{message:?}"
    );
    assert!(
        lines.contains(&link.as_str()),
        "the link is whole on a line of its own: {}",
        message.data
    );
    assert!(
        message.data.split("\r\n").all(|l| !l.contains('\n')),
        "every line ends with CRLF: {:?}",
        message.data
    );
}

#[tokio::test]
async fn smtp_refused_recipient_is_a_send_error() {
    let mut server = SmtpServer::start(Rcpt::Refuse).await;
    let sent = mailer(&server.url()).send(&verification(&link())).await;
    assert!(matches!(sent, Err(MailError::Send(_))), "{sent:?}");
    // A message would have arrived before the server's 250, so before `send` returned.
    assert!(server.received.try_recv().is_err(), "nothing was delivered");
}

#[tokio::test]
async fn smtp_without_a_server_is_a_send_error() {
    // A port that was free a moment ago, with nothing listening on it now.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("local addr").port()
    };
    let sent = mailer(&format!("smtp://127.0.0.1:{port}"))
        .send(&verification(&link()))
        .await;
    assert!(matches!(sent, Err(MailError::Send(_))), "{sent:?}");
}

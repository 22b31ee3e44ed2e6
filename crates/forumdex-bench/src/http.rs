//! A minimal HTTP/1.1 client for load generation: one keep-alive connection, `GET` only,
//! bodies framed by `Content-Length` or chunked. It does as little as possible so that the
//! client takes little of the CPU it shares with the server.

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// One keep-alive connection to a server.
pub struct Connection {
    stream: BufReader<TcpStream>,
    host: String,
    line: String,
}

/// A response: its status and body.
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl Connection {
    /// Connects to `addr` (`host:port`).
    pub async fn open(addr: &str) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self {
            stream: BufReader::with_capacity(64 * 1024, stream),
            host: addr.to_owned(),
            line: String::new(),
        })
    }

    /// Sends `GET path` with `Authorization: Bearer key` and reads the whole response.
    pub async fn get(&mut self, path: &str, key: &str) -> io::Result<Response> {
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\n\r\n",
            self.host
        );
        self.stream.get_mut().write_all(request.as_bytes()).await?;
        self.read_response().await
    }

    async fn read_line(&mut self) -> io::Result<&str> {
        self.line.clear();
        if self.stream.read_line(&mut self.line).await? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed",
            ));
        }
        Ok(self.line.trim_end())
    }

    async fn read_response(&mut self) -> io::Result<Response> {
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
        let status: u16 = self
            .read_line()
            .await?
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("bad status line"))?;
        let mut length: Option<usize> = None;
        let mut chunked = false;
        loop {
            let line = self.read_line().await?;
            if line.is_empty() {
                break;
            }
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(value.parse().map_err(|_| bad("bad content-length"))?);
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let size = usize::from_str_radix(self.read_line().await?, 16)
                    .map_err(|_| bad("bad chunk size"))?;
                let start = body.len();
                body.resize(start + size, 0);
                self.stream.read_exact(&mut body[start..]).await?;
                self.read_line().await?;
                if size == 0 {
                    break;
                }
            }
        } else {
            body.resize(length.unwrap_or(0), 0);
            self.stream.read_exact(&mut body).await?;
        }
        Ok(Response { status, body })
    }
}

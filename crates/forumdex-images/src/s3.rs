//! Image objects in an S3-compatible object store (setting `images_url = "s3://bucket/prefix"`),
//! through the `object_store` crate.
//!
//! [`ImageObjects`] is a blocking seam (the importer's workers and the CDN's blocking pool
//! call it), and `object_store` is asynchronous: each store runs its requests on a small
//! runtime of its own and the calling thread waits for the answer. That works from any
//! thread, inside another runtime's blocking pool included.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use forumdex_corpus::ImageObject;
use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey};
use object_store::path::Path as ObjectPath;
use object_store::{ClientConfigKey, ObjectStore, PutPayload, RetryConfig};
use tokio::runtime::Runtime;

use crate::objects::{ImageObjects, ObjectError, is_object_name, sha256_hex};

/// `s3://bucket/prefix`: a bucket, and the key prefix the objects go below (empty for the
/// bucket's root). Objects are `<prefix>/<first two hex digits>/<sha256>.avif`, as in a
/// folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Location {
    /// The bucket's name (S3's rules: 3 to 63 lowercase letters, digits, `.` and `-`,
    /// beginning and ending with a letter or digit).
    pub bucket: String,
    /// The key prefix, without leading or trailing `/`; empty for none.
    pub prefix: String,
}

impl S3Location {
    /// Parses `bucket[/prefix]` (what follows `s3://`).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let (bucket, prefix) = text.split_once('/').unwrap_or((text, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-'))
            && bucket.starts_with(|c: char| c.is_ascii_alphanumeric())
            && bucket.ends_with(|c: char| c.is_ascii_alphanumeric());
        if !bucket_ok {
            return Err(format!(
                "images_url s3://{text}: {bucket:?} is not a bucket name (3 to 63 lowercase \
                 letters, digits, '.' and '-', beginning and ending with a letter or digit)"
            ));
        }
        let prefix = prefix.trim_end_matches('/');
        let segments_ok = prefix.is_empty()
            || prefix.split('/').all(|segment| {
                !segment.is_empty()
                    && segment != "."
                    && segment != ".."
                    && !segment.chars().any(char::is_control)
            });
        if !segments_ok {
            return Err(format!(
                "images_url s3://{text}: the key prefix {prefix:?} has an empty, '.' or '..' \
                 segment or a control character"
            ));
        }
        Ok(Self {
            bucket: bucket.to_owned(),
            prefix: prefix.to_owned(),
        })
    }

    /// The key of object `sha256`.
    pub(crate) fn key_of(&self, sha256: &str) -> String {
        let key = crate::objects::object_key(sha256);
        if self.prefix.is_empty() {
            key
        } else {
            format!("{}/{key}", self.prefix)
        }
    }
}

impl fmt::Display for S3Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.prefix.is_empty() {
            write!(f, "s3://{}", self.bucket)
        } else {
            write!(f, "s3://{}/{}", self.bucket, self.prefix)
        }
    }
}

/// How long one request may take, connecting included, before it is tried again.
const REQUEST_TIMEOUT: &str = "10s";
/// How long connecting may take.
const CONNECT_TIMEOUT: &str = "2s";
/// Tries after the first failure (of a request that may be tried again), and the time all
/// tries may take: a CDN request waits at most about this long when the store is away.
const RETRIES: usize = 2;
const RETRY_TIMEOUT: Duration = Duration::from_secs(15);

/// Objects in a bucket of an S3-compatible store, below a key prefix. Keys are
/// `<prefix>/<first two hex digits>/<sha256>.avif`; a `PUT` appears whole or not at all, so
/// a reader never sees a partial object.
pub struct S3ImageObjects {
    store: Arc<AmazonS3>,
    location: S3Location,
    /// Runs the requests; `None` only while dropping.
    runtime: Option<Runtime>,
}

/// How to reach the store, where it is not taken from the environment: each field set
/// overrides the AWS variable it names.
#[derive(Clone, Default)]
pub struct S3Access {
    /// The endpoint of an S3-compatible store (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`).
    pub endpoint: Option<String>,
    /// `AWS_ACCESS_KEY_ID`.
    pub access_key_id: Option<String>,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: Option<String>,
    /// `AWS_REGION`.
    pub region: Option<String>,
}

impl std::fmt::Debug for S3Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Access")
            .field("endpoint", &self.endpoint)
            .field("access_key_id", &self.access_key_id)
            .field(
                "secret_access_key",
                &self.secret_access_key.as_ref().map(|_| "..."),
            )
            .field("region", &self.region)
            .finish()
    }
}

impl S3ImageObjects {
    /// A store for `location`, configured from the usual AWS variables:
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` (or
    /// `AWS_DEFAULT_REGION`), and for S3-compatible stores the endpoint `AWS_ENDPOINT_URL_S3`
    /// or `AWS_ENDPOINT_URL`. An `http://` endpoint is allowed as named (otherwise only
    /// HTTPS is, unless `AWS_ALLOW_HTTP=true`). Nothing is contacted until the first request.
    pub fn open(location: &S3Location) -> Result<Self, ObjectError> {
        Self::open_with(location, &S3Access::default())
    }

    /// [`Self::open`], with `access` overriding the environment.
    pub fn open_with(location: &S3Location, access: &S3Access) -> Result<Self, ObjectError> {
        let mut builder = AmazonS3Builder::from_env().with_bucket_name(&location.bucket);
        let endpoint =
            (access.endpoint.clone()).or_else(|| std::env::var("AWS_ENDPOINT_URL_S3").ok());
        if let Some(endpoint) = endpoint {
            builder = builder.with_endpoint(endpoint);
        }
        if let Some(id) = &access.access_key_id {
            builder = builder.with_access_key_id(id);
        }
        if let Some(secret) = &access.secret_access_key {
            builder = builder.with_secret_access_key(secret);
        }
        if let Some(region) = &access.region {
            builder = builder.with_region(region);
        }
        let plain_http = builder
            .get_config_value(&AmazonS3ConfigKey::Endpoint)
            .is_some_and(|endpoint| endpoint.starts_with("http://"));
        if plain_http {
            builder = builder.with_allow_http(true);
        }
        let store = builder
            .with_config(
                AmazonS3ConfigKey::Client(ClientConfigKey::Timeout),
                REQUEST_TIMEOUT,
            )
            .with_config(
                AmazonS3ConfigKey::Client(ClientConfigKey::ConnectTimeout),
                CONNECT_TIMEOUT,
            )
            .with_retry(RetryConfig {
                max_retries: RETRIES,
                retry_timeout: RETRY_TIMEOUT,
                ..RetryConfig::default()
            })
            .build()
            .map_err(|err| ObjectError::new(location, err))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("forumdex-s3")
            .enable_all()
            .build()
            .map_err(|err| ObjectError::new(location, err))?;
        Ok(Self {
            store: Arc::new(store),
            location: location.clone(),
            runtime: Some(runtime),
        })
    }

    fn key_of(&self, sha256: &str) -> ObjectPath {
        ObjectPath::from(self.location.key_of(sha256))
    }

    /// Runs `request` on the store's runtime and waits for its answer.
    fn run<T: Send + 'static>(&self, request: impl Future<Output = T> + Send + 'static) -> T {
        let (answer, answered) = std::sync::mpsc::sync_channel(1);
        self.runtime
            .as_ref()
            .expect("the runtime lives as long as the store")
            .spawn(async move {
                // The receiver waits below; it is gone only if the caller's thread died.
                let _ = answer.send(request.await);
            });
        answered
            .recv()
            .expect("the S3 runtime runs every request to its end")
    }

    fn failed(&self, sha256: &str, err: object_store::Error) -> ObjectError {
        let (bucket, key) = (&self.location.bucket, self.key_of(sha256));
        ObjectError::new(format_args!("s3://{bucket}/{key}"), concise(&err))
    }
}

/// What went wrong, without the XML error document a store adds to its status (the code
/// and message in it repeat the status line, and a log line per image would carry it all).
fn concise(err: &object_store::Error) -> String {
    let text = err.to_string();
    let before_document = text.split("<?xml").next().unwrap_or(&text);
    before_document
        .trim_end_matches([' ', ':', '\n'])
        .to_owned()
}

impl ImageObjects for S3ImageObjects {
    fn put(&self, avif: &[u8]) -> Result<ImageObject, ObjectError> {
        let sha256 = sha256_hex(avif);
        let object = ImageObject {
            sha256: sha256.clone(),
            bytes: avif.len() as u64,
        };
        let (store, key) = (Arc::clone(&self.store), self.key_of(&sha256));
        let payload = PutPayload::from(avif.to_vec());
        let size = object.bytes;
        let stored = self.run(async move {
            // Objects are immutable: one already there with this size is this object.
            match store.head(&key).await {
                Ok(meta) if meta.size == size => return Ok(()),
                Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
                Err(err) => return Err(err),
            }
            store.put(&key, payload).await.map(|_| ())
        });
        stored.map_err(|err| self.failed(&sha256, err))?;
        Ok(object)
    }

    fn get(&self, sha256: &str) -> Result<Option<Vec<u8>>, ObjectError> {
        if !is_object_name(sha256) {
            return Ok(None);
        }
        let (store, key) = (Arc::clone(&self.store), self.key_of(sha256));
        let read = self.run(async move {
            match store.get(&key).await {
                Ok(found) => found.bytes().await.map(|bytes| Some(bytes.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(err) => Err(err),
            }
        });
        read.map_err(|err| self.failed(sha256, err))
    }
}

impl Drop for S3ImageObjects {
    fn drop(&mut self) {
        // Dropping a runtime waits for its threads, which is not allowed inside another
        // runtime's task (where the server may drop its last handle): stop it without waiting.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_leave_out_the_stores_xml_document() {
        let err = object_store::Error::Generic {
            store: "S3",
            source: "PUT http://objects/b/k - 403 Forbidden: <?xml version=\"1.0\"?>\n<Error>\
                     <Code>AccessDenied</Code></Error>"
                .into(),
        };
        assert_eq!(
            concise(&err),
            "Generic S3 error: PUT http://objects/b/k - 403 Forbidden"
        );
        let plain = object_store::Error::Generic {
            store: "S3",
            source: "connection refused".into(),
        };
        assert_eq!(concise(&plain), "Generic S3 error: connection refused");
    }
}

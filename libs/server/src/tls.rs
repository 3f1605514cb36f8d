//! TLS for Ludus servers and the internal clients (ARCHITECTURE.md, TLS).
//!
//! - A server given a certificate and key ([`ServerTls`]) serves TLS only on its port: gRPC
//!   over HTTP/2 and grpc-web over HTTP/1.1 or HTTP/2 (ALPN offers `h2` and `http/1.1`).
//!   Without one it serves plain h2c, as before. The files are read again every
//!   [`RELOAD_EVERY`]: a renewed certificate (a Kubernetes Secret updated in place,
//!   cert-manager's renewals) is used for every handshake after the change, while connections
//!   already open keep theirs, so nothing is dropped. A replacement that does not parse, or
//!   whose key does not match its certificate, is refused with a warning and the previous
//!   certificate stays in use.
//! - An internal client dialing an `https://` URL ([`endpoint`]) trusts the CA file this
//!   process was given (`--tls-ca`, a private CA), else the public web PKI (webpki roots).
//!   `http://` URLs stay plain h2c.
//!
//! rustls on the ring provider throughout: it is the one sqlx's rustls already builds, so the
//! process has a single crypto backend.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

/// How often a server reads its certificate and key files again. Kubernetes propagates an
/// updated Secret to the mounted files within about a minute; this adds at most half of that.
pub const RELOAD_EVERY: Duration = Duration::from_secs(30);

/// How long a client gets to finish its TLS handshake before its connection is closed.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The TLS flags every service binary takes (flattened into [`crate::service_auth::ServiceFlags`]).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct TlsFlags {
    /// PEM certificate chain this server presents (leaf first). With `--tls-key` the port
    /// serves TLS only (gRPC and grpc-web); without both it serves plain h2c. Read again when
    /// the file changes.
    #[arg(long, env = "LUDUS_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of `--tls-cert` (PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "LUDUS_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// PEM CA certificate(s) this process trusts when it dials another service at an
    /// `https://` URL (a private CA); without it such URLs trust the public web PKI.
    #[arg(long, env = "LUDUS_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
    /// Also serve the gRPC health service alone, plain h2c, on this address (e.g.
    /// `0.0.0.0:50060`): Kubernetes' `grpc` probes speak no TLS, so a TLS server needs a
    /// plain port for them. Nothing but health is served there.
    #[arg(long, env = "LUDUS_HEALTH_LISTEN")]
    pub health_listen: Option<String>,
}

impl TlsFlags {
    /// The server certificate these flags name, if any (read and checked now).
    pub fn server(&self) -> anyhow::Result<Option<ServerTls>> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Ok(Some(ServerTls::from_files(cert, key)?)),
            (None, None) => Ok(None),
            _ => anyhow::bail!("--tls-cert and --tls-key go together"),
        }
    }

    /// Installs these flags for the whole process: the CA internal clients trust, and the
    /// certificate its internal server ([`crate::serve`], [`crate::serve_while_ready`])
    /// presents. Standalone binaries run one server each, so "the process's server" is it.
    pub fn install(&self) -> anyhow::Result<()> {
        if let Some(ca) = &self.tls_ca {
            let pem =
                std::fs::read(ca).map_err(|e| anyhow::anyhow!("--tls-ca {}: {e}", ca.display()))?;
            install_client_ca(pem)?;
        }
        if let Some(server) = self.server()? {
            anyhow::ensure!(
                PROCESS_SERVER.set(server).is_ok(),
                "this process already has a server certificate"
            );
        }
        if let Some(address) = &self.health_listen {
            anyhow::ensure!(
                HEALTH_LISTEN.set(address.clone()).is_ok(),
                "this process already has a health port"
            );
        }
        Ok(())
    }
}

static PROCESS_SERVER: OnceLock<ServerTls> = OnceLock::new();
static HEALTH_LISTEN: OnceLock<String> = OnceLock::new();

/// Where this process also serves health alone in plain h2c (`--health-listen`), if anywhere.
pub fn health_listen() -> Option<&'static str> {
    HEALTH_LISTEN.get().map(String::as_str)
}
static CLIENT_CA: OnceLock<Vec<u8>> = OnceLock::new();

/// The server certificate installed for this process ([`TlsFlags::install`]), if any.
pub fn process_server() -> Option<ServerTls> {
    PROCESS_SERVER.get().cloned()
}

/// Makes internal clients of this process trust `pem` (one or more CA certificates) for
/// `https://` URLs. Installing the same CA again is fine (tests start many systems in one
/// process); another CA is an error.
pub fn install_client_ca(pem: Vec<u8>) -> anyhow::Result<()> {
    let certificates = parse_certificates(&pem)?;
    anyhow::ensure!(!certificates.is_empty(), "the CA file holds no certificate");
    let installed = CLIENT_CA.get_or_init(|| pem.clone());
    anyhow::ensure!(
        *installed == pem,
        "another client CA is already installed in this process"
    );
    Ok(())
}

/// An endpoint for `uri` with this process's client TLS: `https://` URLs trust the installed
/// CA ([`install_client_ca`]) or else the webpki roots; other URLs are left plain.
pub fn endpoint(uri: &str) -> Result<Endpoint, tonic::transport::Error> {
    with_client_tls(Endpoint::from_shared(uri.to_owned())?)
}

/// `endpoint` with this process's client TLS applied when its URI is `https://`.
pub fn with_client_tls(endpoint: Endpoint) -> Result<Endpoint, tonic::transport::Error> {
    if endpoint.uri().scheme_str() != Some("https") {
        return Ok(endpoint);
    }
    let config = match CLIENT_CA.get() {
        Some(pem) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)),
        None => ClientTlsConfig::new().with_webpki_roots(),
    };
    endpoint.tls_config(config)
}

/// A server certificate and key read from files and read again when they change (see the
/// module docs). Cheap to clone; clones share the current certificate.
#[derive(Clone)]
pub struct ServerTls {
    files: Arc<CertFiles>,
    config: Arc<rustls::ServerConfig>,
    reload_every: Duration,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTls")
            .field("cert", &self.files.cert)
            .field("key", &self.files.key)
            .field("reload_every", &self.reload_every)
            .finish_non_exhaustive()
    }
}

impl ServerTls {
    /// Reads the PEM certificate chain at `cert` and its key at `key`; fails when they do not
    /// parse or do not match.
    pub fn from_files(cert: impl AsRef<Path>, key: impl AsRef<Path>) -> anyhow::Result<Self> {
        let files = CertFiles {
            cert: cert.as_ref().to_path_buf(),
            key: key.as_ref().to_path_buf(),
            read: Mutex::new((Vec::new(), Vec::new())),
            current: RwLock::new(None),
        };
        let (cert_pem, key_pem) = files.read_files()?;
        let certified = certified_key(&cert_pem, &key_pem)?;
        *files.read.lock().unwrap_or_else(PoisonError::into_inner) = (cert_pem, key_pem);
        *files
            .current
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(certified);
        let files = Arc::new(files);
        let mut config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_cert_resolver(files.clone());
        // gRPC needs HTTP/2; grpc-web from a browser may come over either.
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(ServerTls {
            files,
            config: Arc::new(config),
            reload_every: RELOAD_EVERY,
        })
    }

    /// Reads the files every `period` instead of every [`RELOAD_EVERY`] (tests).
    pub fn reloading_every(mut self, period: Duration) -> Self {
        self.reload_every = period;
        self
    }

    /// Reads the files now: `Ok(true)` when a new certificate is in use from the next
    /// handshake on, `Ok(false)` when the files are unchanged, an error (the previous
    /// certificate stays) when the new contents are unusable.
    pub fn reload(&self) -> anyhow::Result<bool> {
        let (cert_pem, key_pem) = self.files.read_files()?;
        {
            let mut read = self
                .files
                .read
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if read.0 == cert_pem && read.1 == key_pem {
                return Ok(false);
            }
            // Remembered even when unusable, so a bad file is reported once, not every poll.
            *read = (cert_pem.clone(), key_pem.clone());
        }
        let certified = certified_key(&cert_pem, &key_pem)?;
        *self
            .files
            .current
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(certified);
        Ok(true)
    }

    /// Reloads every period until dropped (the server aborts it when it stops).
    pub(crate) async fn watch(self) {
        let mut every = tokio::time::interval(self.reload_every);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        every.tick().await;
        loop {
            every.tick().await;
            match self.reload() {
                Ok(true) => tracing::info!(
                    cert = %self.files.cert.display(),
                    "TLS certificate reloaded: new connections get the new one"
                ),
                Ok(false) => {}
                Err(error) => tracing::warn!(
                    cert = %self.files.cert.display(),
                    key = %self.files.key.display(),
                    %error,
                    "TLS certificate files changed but cannot be used: keeping the previous certificate"
                ),
            }
        }
    }

    /// The acceptor for one server's connections.
    pub(crate) fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(self.config.clone())
    }
}

/// The files and the certificate currently served from them.
#[derive(Debug)]
struct CertFiles {
    cert: PathBuf,
    key: PathBuf,
    /// The file contents last read (usable or not).
    read: Mutex<(Vec<u8>, Vec<u8>)>,
    current: RwLock<Option<Arc<CertifiedKey>>>,
}

impl CertFiles {
    fn read_files(&self) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
        };
        Ok((read(&self.cert)?, read(&self.key)?))
    }
}

impl ResolvesServerCert for CertFiles {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn parse_certificates(pem: &[u8]) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("not a PEM certificate: {e}"))
}

/// The certificate chain and key as rustls signs with them; fails when the key does not
/// match the leaf certificate.
fn certified_key(cert_pem: &[u8], key_pem: &[u8]) -> anyhow::Result<Arc<CertifiedKey>> {
    let chain = parse_certificates(cert_pem)?;
    anyhow::ensure!(
        !chain.is_empty(),
        "the certificate file holds no certificate"
    );
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| anyhow::anyhow!("not a PEM private key: {e}"))?;
    let certified = CertifiedKey::from_der(chain, key, &provider())
        .map_err(|e| anyhow::anyhow!("certificate and key: {e}"))?;
    Ok(Arc::new(certified))
}

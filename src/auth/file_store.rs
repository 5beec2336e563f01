//! Native token storage: one JSON file per MCP server under the user's
//! configuration directory (`$XDG_CONFIG_HOME/mcp-edge/tokens/`, else
//! `~/.config/mcp-edge/tokens/`), readable by the owner only (0600 files in
//! 0700 directories on Unix), replaced atomically (a temporary file renamed
//! over the old one). Processes sharing the directory take an advisory lock
//! (`<name>.lock`, [`std::fs::File::try_lock`]) around read - refresh - write.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::error::AuthError;
use super::store::{AuthRecord, StoreLock, TokenStore};
use crate::runtime::{BoxFuture, boxed};

/// Keeps one [`AuthRecord`] per server in a file of its own.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    dir: PathBuf,
}

impl FileTokenStore {
    /// The store in the user's configuration directory.
    pub fn new() -> Result<Self, AuthError> {
        Ok(FileTokenStore { dir: default_dir()? })
    }

    /// A store in `dir` (created on first save).
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        FileTokenStore { dir: dir.into() }
    }

    /// The directory the files are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds `server`'s record: the SHA-256 of the key, in hex.
    pub fn path_for(&self, server: &str) -> PathBuf {
        let digest = crate::auth::pkce::sha256(server.as_bytes());
        let name: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}.json"))
    }

    fn load_now(&self, server: &str) -> Result<Option<AuthRecord>, AuthError> {
        let path = self.path_for(server);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(AuthError::Store(format!("cannot read {}: {e}", path.display()))),
        };
        match crate::protocol::fields::from_bytes(text.as_bytes(), "an object") {
            Ok(record) => Ok(Some(record)),
            Err(e) => {
                // A damaged file is not fatal: the flow starts over and replaces it.
                log::warn!("ignoring the unreadable token file {}: {e}", path.display());
                Ok(None)
            }
        }
    }

    fn save_now(&self, server: &str, record: &AuthRecord) -> Result<(), AuthError> {
        create_private_dir(&self.dir)?;
        let path = self.path_for(server);
        let json = serde_json::to_vec_pretty(&record.to_value()).map_err(|e| AuthError::Store(e.to_string()))?;
        let mut suffix = [0u8; 8];
        getrandom::fill(&mut suffix).map_err(|e| AuthError::Store(e.to_string()))?;
        let suffix: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
        let temp = path.with_extension(format!("json.{suffix}.tmp"));
        let written = (|| -> std::io::Result<()> {
            let mut file = private_file_options().open(&temp)?;
            file.write_all(&json)?;
            file.sync_all()?;
            drop(file);
            std::fs::rename(&temp, &path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(AuthError::Store(format!("cannot write {}: {e}", path.display())));
        }
        Ok(())
    }

    /// The advisory lock on `server`'s record, waiting (polling, so the
    /// caller's runtime is not blocked) up to [`LOCK_WAIT`] for another
    /// process to let go. The lock ends when the file is closed, also when
    /// a process dies holding it.
    async fn lock_now(&self, server: &str) -> Result<StoreLock, AuthError> {
        create_private_dir(&self.dir)?;
        let path = self.path_for(server).with_extension("lock");
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let file = options.open(&path).map_err(|e| AuthError::Store(format!("cannot open {}: {e}", path.display())))?;
        let started = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(StoreLock::holding(file)),
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => {
                    crate::runtime::sleep(std::time::Duration::from_millis(20)).await;
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(AuthError::Store(format!(
                        "{} is locked by another process for over {} s",
                        path.display(),
                        LOCK_WAIT.as_secs()
                    )));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(AuthError::Store(format!("cannot lock {}: {e}", path.display())));
                }
            }
        }
    }

    fn clear_now(&self, server: &str) -> Result<(), AuthError> {
        let path = self.path_for(server);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(AuthError::Store(format!("cannot remove {}: {e}", path.display()))),
        }
    }
}

impl TokenStore for FileTokenStore {
    fn load<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<AuthRecord>, AuthError>> {
        let result = self.load_now(server);
        boxed(async move { result })
    }

    fn save<'a>(&'a self, server: &'a str, record: &'a AuthRecord) -> BoxFuture<'a, Result<(), AuthError>> {
        let result = self.save_now(server, record);
        boxed(async move { result })
    }

    fn clear<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<(), AuthError>> {
        let result = self.clear_now(server);
        boxed(async move { result })
    }

    fn lock<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<StoreLock, AuthError>> {
        boxed(self.lock_now(server))
    }

    fn persistent(&self) -> bool {
        true
    }
}

/// How long [`TokenStore::lock`] waits for another process: longer than a
/// refresh takes, shorter than a user would wait for a stuck one.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// `$XDG_CONFIG_HOME/mcp-edge/tokens`, else `$HOME/.config/mcp-edge/tokens`
/// (`%APPDATA%\mcp-edge\tokens` on Windows).
pub fn default_dir() -> Result<PathBuf, AuthError> {
    let absolute = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let base = absolute("XDG_CONFIG_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".config")))
        .or_else(|| absolute("APPDATA"))
        .ok_or_else(|| AuthError::Store("no configuration directory: set XDG_CONFIG_HOME or HOME".into()))?;
    Ok(base.join("mcp-edge").join("tokens"))
}

fn create_private_dir(dir: &Path) -> Result<(), AuthError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| AuthError::Store(format!("cannot create {}: {e}", dir.display())))?;
    #[cfg(unix)]
    {
        // `mode` applies to directories it creates; tighten an existing one too.
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| AuthError::Store(format!("cannot restrict {}: {e}", dir.display())))?;
    }
    Ok(())
}

fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::store::{ClientRegistration, Tokens};

    fn temp_dir(name: &str) -> PathBuf {
        let mut suffix = [0u8; 8];
        getrandom::fill(&mut suffix).unwrap();
        let suffix: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
        std::env::temp_dir().join(format!("mcp-edge-{name}-{suffix}"))
    }

    fn record() -> AuthRecord {
        AuthRecord {
            tokens: Some(Tokens {
                access_token: "at".into(),
                token_type: "Bearer".into(),
                refresh_token: Some("rt".into()),
                expires_at: Some(42),
                issued_at: None,
                scope: None,
            }),
            clients: vec![ClientRegistration {
                issuer: "https://as.example".into(),
                client_id: "c".into(),
                client_secret: None,
                token_endpoint_auth_method: Some("none".into()),
                client_secret_expires_at: None,
                redirect_uris: Vec::new(),
            }],
        }
    }

    fn block<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(future)
    }

    #[test]
    fn round_trip_and_clear() {
        let root = temp_dir("roundtrip");
        let store = FileTokenStore::in_dir(root.join("a/tokens"));
        let key = "https://mcp.example/mcp";
        assert_eq!(block(store.load(key)).unwrap(), None);
        block(store.save(key, &record())).unwrap();
        assert_eq!(block(store.load(key)).unwrap(), Some(record()));
        assert_eq!(block(store.load("https://other.example/mcp")).unwrap(), None);
        // Replacing works (rename over an existing file).
        let mut changed = record();
        changed.tokens = None;
        block(store.save(key, &changed)).unwrap();
        assert_eq!(block(store.load(key)).unwrap(), Some(changed));
        block(store.clear(key)).unwrap();
        assert_eq!(block(store.load(key)).unwrap(), None);
        block(store.clear(key)).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn file_names_do_not_leak_the_key() {
        let store = FileTokenStore::in_dir("/x");
        let path = store.path_for("https://mcp.example/../../etc/passwd");
        assert_eq!(path.parent(), Some(Path::new("/x")));
        let name = path.file_name().unwrap().to_str().unwrap();
        assert_eq!(name.len(), 64 + 5);
        assert!(name.trim_end_matches(".json").bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[cfg(unix)]
    #[test]
    fn owner_only_permissions() {
        use std::os::unix::fs::PermissionsExt as _;
        let root = temp_dir("perms");
        let dir = root.join("tokens");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let store = FileTokenStore::in_dir(&dir);
        block(store.save("k", &record())).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&store.path_for("k")), 0o600);
        // A new nested directory is created 0700 too.
        let nested = FileTokenStore::in_dir(root.join("n/tokens"));
        block(nested.save("k", &record())).unwrap();
        assert_eq!(mode(&root.join("n/tokens")), 0o700);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_lock_holds_others_off_until_dropped() {
        let root = temp_dir("lock");
        let store = FileTokenStore::in_dir(&root);
        block(async {
            let held = store.lock("k").await.unwrap();
            // A second holder (another open file description, as in another
            // process) waits while the first holds it.
            let waiting = tokio::time::timeout(std::time::Duration::from_millis(150), store.lock("k")).await;
            assert!(waiting.is_err(), "the lock was taken twice");
            // Another server's record is not held.
            drop(store.lock("other").await.unwrap());
            drop(held);
            drop(store.lock("k").await.unwrap());
        });
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn writes_are_atomic() {
        let root = temp_dir("atomic");
        let store = FileTokenStore::in_dir(&root);
        block(store.save("k", &record())).unwrap();
        // Only the final file is left behind: no temporary files.
        let names: Vec<String> =
            std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names[0].ends_with(".json"));
        // A write that cannot complete leaves the old file intact: make the
        // directory read-only so the temp file cannot be created.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o500)).unwrap();
            let failed = store.save_now("k", &AuthRecord::default());
            std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).unwrap();
            // (root ignores permissions; then the save succeeds and is still whole)
            let loaded = block(store.load("k")).unwrap().unwrap();
            if failed.is_err() {
                assert_eq!(loaded, record());
            } else {
                assert_eq!(loaded, AuthRecord::default());
            }
        }
        // A damaged file reads as nothing, and is replaced whole.
        std::fs::write(store.path_for("k"), b"{not json").unwrap();
        assert_eq!(block(store.load("k")).unwrap(), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}

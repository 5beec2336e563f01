//! stdio with era detection: a server that exits when probed before
//! `initialize` is started again for the handshake.

use super::super::{Client, ClientOptions, Error};
use super::probe::{EraChoice, EraVerdict, remembered_era};
use crate::transport::TransportError;
use crate::transport::stdio::{StdioOptions, StdioTransport};

/// The era cache key of a launch configuration.
fn launch_key(options: &StdioOptions) -> String {
    format!("stdio:{:?} {:?} env={:?} cwd={:?}", options.program, options.args, options.env, options.cwd)
}

async fn attempt(options: &StdioOptions, client: ClientOptions) -> Result<Client, Error> {
    let transport = StdioTransport::spawn(options.clone())?;
    let (client, driver) = Client::new(transport, client);
    crate::runtime::spawn(driver)?;
    match client.start().await {
        Ok(_) => Ok(client),
        Err(error) => {
            client.close().await;
            Err(error)
        }
    }
}

/// Starts the server and talks to it in the era [`ClientOptions::era`]
/// asks for. With [`EraChoice::Auto`] it probes with `server/discover`
/// (digest of 2026-07-28 §2.2): a stateless server is used statelessly; any
/// other answer, silence, or a server that exits on the probe means the
/// handshake, on a freshly started process if the probe ended the first
/// one. The verdict is cached per command line, arguments, environment and
/// directory for the life of the process.
pub async fn connect_stdio(options: StdioOptions, client: ClientOptions) -> Result<Client, Error> {
    let mut client = client;
    let key = launch_key(&options);
    client.era_cache_key.get_or_insert_with(|| key.clone());
    let auto = client.era == EraChoice::Auto;
    match attempt(&options, client.clone()).await {
        Err(Error::Transport(TransportError::Closed(_) | TransportError::ProcessExited { .. }))
            if auto && remembered_era(&key) == Some(EraVerdict::Handshake) =>
        {
            log::debug!("{} exited when probed: starting it again for the handshake", options.program);
            attempt(&options, client).await
        }
        other => other,
    }
}

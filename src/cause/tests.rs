//! `source()` chains walked down to real I/O errors (a missing program, a
//! refused connection), through the layers' error types.

use std::error::Error as _;
use std::io;

use super::*;
use crate::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, Method};
use crate::transport::{StdioOptions, StdioTransport, TransportError};

/// The first `std::io::Error` down the `source()` chain of `error`.
fn io_error_in<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a io::Error> {
    let mut next = error.source();
    while let Some(cause) = next {
        if let Some(io) = cause.downcast_ref::<io::Error>() {
            return Some(io);
        }
        next = cause.source();
    }
    None
}

#[tokio::test]
async fn a_missing_program_keeps_the_os_error_as_the_source() {
    let program = "/nonexistent/mcp-edge-no-such-server";
    let error = match StdioTransport::spawn(StdioOptions::new(program, Vec::<String>::new())) {
        Err(error) => error,
        Ok(_) => panic!("{program} started"),
    };
    assert!(matches!(error, TransportError::Spawn { .. }), "{error:?}");
    let io = io_error_in(&error).unwrap_or_else(|| panic!("no io::Error under {error:?}"));
    assert_eq!(io.kind(), io::ErrorKind::NotFound);
    // The text is what it was: the OS error's own words after the command.
    assert_eq!(error.to_string(), format!("could not start the server `{program}`: {io}"));
}

#[tokio::test]
async fn a_refused_connection_keeps_the_io_error_as_the_source() {
    let request = HttpRequest { method: Method::Get, url: "http://127.0.0.1:1/".into(), headers: vec![], body: None };
    let error = match DefaultHttp::new().fetch(request).await {
        Err(error) => error,
        Ok(response) => panic!("127.0.0.1:1 answered {}", response.status),
    };
    let HttpError::Network(cause) = &error else { panic!("not a network error: {error:?}") };
    assert!(cause.starts_with("could not reach http://127.0.0.1:1/"), "{cause}");
    let io = io_error_in(&error).unwrap_or_else(|| panic!("no io::Error under {error:?}"));
    assert_eq!(io.kind(), io::ErrorKind::ConnectionRefused);
    // Through the transport's error the chain goes on to the same root.
    let transport = TransportError::Io(cause.clone());
    assert_eq!(transport.to_string(), format!("I/O error: {cause}"));
    assert_eq!(io_error_in(&transport).map(io::Error::kind), Some(io::ErrorKind::ConnectionRefused));
}

#[test]
fn a_cause_without_an_error_behind_it_ends_the_chain() {
    let cause = Cause::from("refused");
    assert!(cause.source().is_none());
    assert_eq!(cause, "refused");
    assert_eq!(format!("{cause:?}"), format!("{:?}", "refused"));
    let error = TransportError::Io(cause);
    assert!(error.source().is_some_and(|source| source.source().is_none()));
}

//! Waits that leave out the time a person spends signing in: a request's
//! timeout and connecting's one deadline run on the caller's clock, minus
//! what the auth provider reports as [`AuthProvider::interaction_time`].

use std::sync::Arc;
use std::time::Duration;

use crate::auth::AuthProvider;
use crate::runtime::sleep;

/// The shortest nap between two looks at the clock while a person signs in.
const RECHECK: Duration = Duration::from_millis(100);

/// Resolves once `limit` has passed, not counting time `clock` spent
/// waiting for a person (none without a provider).
pub(crate) async fn wait(limit: Duration, clock: Option<Arc<dyn AuthProvider>>) {
    let Some(clock) = clock else {
        return sleep(limit).await;
    };
    let started = crate::runtime::now_millis();
    let interacted = clock.interaction_time();
    let mut nap = limit;
    loop {
        sleep(nap).await;
        let elapsed = crate::runtime::duration_from_millis(crate::runtime::now_millis() - started);
        let signing_in = clock.interaction_time().saturating_sub(interacted);
        let counted = elapsed.saturating_sub(signing_in);
        if counted >= limit {
            return;
        }
        nap = (limit - counted).max(RECHECK);
    }
}

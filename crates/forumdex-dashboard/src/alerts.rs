//! Low-balance mail: a developer sets a threshold on the billing page; when their balance
//! falls below it, they are mailed once, and again only after it went back up to the
//! threshold and fell again. The server's background task calls
//! [`send_low_balance_alerts`] every minute.

use std::sync::Arc;

use forumdex_accounts::LowBalance;

use crate::Dashboard;
use crate::error::blocking;
use crate::mail::Mail;
use crate::pages::auth::send;

/// Mails every account whose balance fell below its threshold since it was last told, and
/// marks each told once its mail went. A mail that fails is logged and tried again on the
/// next call, so a mail server that was down costs a delay, not the alert.
pub async fn send_low_balance_alerts(dashboard: &Arc<Dashboard>) {
    let store = Arc::clone(&dashboard.store);
    let crossed = match blocking(move || Ok(store.due_low_balance_alerts()?)).await {
        Ok(crossed) => crossed,
        Err(err) => {
            tracing::warn!(error = %err, "reading low balances failed");
            return;
        }
    };
    for low in crossed {
        if let Err(err) = send(dashboard, mail(dashboard, &low)).await {
            tracing::error!(error = %err, account = low.account.get(), "mailing a low-balance alert failed; it is tried again in a minute");
            continue;
        }
        let store = Arc::clone(&dashboard.store);
        let account = low.account.get();
        if let Err(err) = blocking(move || Ok(store.mark_low_balance_told(&low)?)).await {
            tracing::warn!(error = %err, account, "marking a low-balance alert told failed");
        }
    }
}

/// The alert of `low`.
fn mail(dashboard: &Dashboard, low: &LowBalance) -> Mail {
    Mail {
        to: low.email.to_string(),
        subject: "Your forumdex balance is low".to_owned(),
        body: format!(
            "Your forumdex balance is {} credits, below the {} you asked to be told about. \
             Requests are refused with 402 once it reaches 0.\n\nTop up: {}/dashboard/billing\n\n\
             Change or turn off this alert on the same page.\n\n-- forumdex\n",
            low.balance, low.threshold, dashboard.config.base_url
        ),
    }
}

//! The payment flow, written once: what a verified payment event does to a top-up order and
//! a balance, and what a credit keyed by an idempotency key does.
//!
//! This is the functional core of the money paths of every
//! [`DeveloperStore`](crate::DeveloperStore): a backend opens its write transaction, lets [`plan_event`] (or
//! [`plan_keyed_credit`]) read the facts it asks for through [`PaymentFacts`], and carries
//! out the returned [`Write`]s in order in that same transaction. Nothing here touches
//! storage, so every branch is tested without a database (`tests` below), and a money fix is
//! made in one place.
//!
//! The rules:
//! - an event id is applied once ([`PaymentOutcome::Duplicate`] after that);
//! - a checkout event names its order by the provider's checkout id or by our order id; when
//!   both are known they must agree, else the event is rejected;
//! - paid is final: a late failure or expiry, or the same payment told twice, changes nothing;
//!   a completed-but-unpaid checkout told after a failure or expiry changes nothing either;
//! - a payment credits the order's credits only when its amount and currency are the order's,
//!   with one ledger row keyed `topup:<id>`;
//! - a refund is cumulative (the provider sends the total refunded so far): it takes back the
//!   refunded share of the credits bought, less what earlier refunds took, at most what the
//!   account still holds, with a ledger row keyed `refund:<event id>`; a refund in another
//!   currency is rejected, one of a payment not recorded yet is [`PaymentOutcome::NotYet`]
//!   (nothing recorded, so the provider's next delivery applies it);
//! - every applied event is recorded with its outcome, and the order's owner sees what
//!   happened in their activity.

use crate::developer::{
    CheckoutFacts, DeveloperError, PaymentEvent, PaymentEventKind, PaymentOutcome,
    REFUND_OPERATION, TOPUP_OPERATION, Topup, TopupStatus,
};
use crate::ids::AccountId;
use crate::rules::{balance_too_large, max_balance_before_adding, validate_amount};
use crate::store::AccountError;
use crate::stored::{corrupt, to_i64};

/// What the planner reads, inside the backend's write transaction.
pub trait PaymentFacts {
    /// The backend's error; the planner's own refusals arrive as [`DeveloperError`]s.
    type Error: From<DeveloperError>;

    /// Whether the event id was applied before.
    fn event_seen(&mut self, event_id: &str) -> Result<bool, Self::Error>;
    /// The order whose provider checkout id is `reference`.
    fn topup_by_reference(&mut self, reference: &str) -> Result<Option<i64>, Self::Error>;
    /// The order with this id.
    fn topup(&mut self, id: i64) -> Result<Option<Topup>, Self::Error>;
    /// The paid order whose provider payment id is `payment_intent`.
    fn paid_topup_by_payment(&mut self, payment_intent: &str) -> Result<Option<i64>, Self::Error>;
    /// The account's balance; `None` when there is no such account.
    fn balance(&mut self, account: AccountId) -> Result<Option<u64>, Self::Error>;
    /// The account charged or credited under a ledger key (a request id), if any.
    fn ledger_owner(&mut self, key: &str) -> Result<Option<AccountId>, Self::Error>;
}

/// A change of a balance with its ledger row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceChange {
    /// Whose balance.
    pub account: AccountId,
    /// Credits added (positive) or taken back (negative).
    pub amount: i64,
    /// The balance after the change, as the planner read it; a backend that finds another
    /// refuses the transaction (its isolation makes that impossible).
    pub balance_after: u64,
    /// The ledger row's operation.
    pub operation: &'static str,
    /// The ledger row's key (its `request_id` column), unique in the ledger.
    pub key: String,
}

/// One write of a plan, carried out in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// The order moves to `status`; the provider's ids are recorded (the payment id when the
    /// event has one, the checkout id when the order had none yet).
    SetStatus {
        /// The order.
        topup_id: i64,
        /// Its new state.
        status: TopupStatus,
        /// The provider's payment id, when the event names one.
        payment_intent: Option<String>,
        /// The provider's checkout id.
        reference: String,
    },
    /// A balance changes, with its ledger row.
    Balance(BalanceChange),
    /// A refund's progress on its order.
    RecordRefund {
        /// The order.
        topup_id: i64,
        /// The refunded amount so far (cumulative, minor unit).
        refunded_cents: u64,
        /// Credits taken back by this refund (added to the order's total).
        credits_taken: u64,
    },
    /// A line in the account's activity.
    Activity {
        /// Whose activity.
        account: AccountId,
        /// Its kind (`topup_paid`, ...).
        kind: &'static str,
        /// What the owner reads.
        detail: String,
    },
    /// The event is recorded as applied, with its outcome.
    RecordEvent {
        /// The provider's event id.
        event_id: String,
        /// The order it was about, when it changed one.
        topup_id: Option<i64>,
        /// The outcome as text (`credited 500`, `ignored: ...`).
        outcome: String,
    },
}

/// What applying an event decides: its outcome and the writes that carry it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// What the caller is told.
    pub outcome: PaymentOutcome,
    /// What the backend writes, in order (none for duplicates and early refunds).
    pub writes: Vec<Write>,
}

/// What a credit keyed by an idempotency key decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyedCredit {
    /// The key was used before by the same account: nothing to add.
    AlreadyApplied,
    /// Add the credits with this change.
    Apply(BalanceChange),
}

/// The ledger key of the credits a new developer receives once their email is verified
/// (one per account, whatever the verification links clicked).
pub fn signup_credit_key(account: AccountId) -> String {
    format!("signup:{account}")
}

/// The ledger key of operator credits added with an idempotency key (`forumdex credits add
/// --idempotency-key KEY`): `credits:` and the key trimmed, which must be 1 to 200 bytes.
pub fn operator_credit_key(idempotency_key: &str) -> Result<String, AccountError> {
    let key = idempotency_key.trim();
    if key.is_empty() || key.len() > 200 {
        return Err(AccountError::InvalidCharge(
            "the idempotency key must be 1 to 200 bytes".to_owned(),
        ));
    }
    Ok(format!("credits:{key}"))
}

/// Plans the credit of `amount` to `account` under a ledger `key` used at most once:
/// nothing when the key was used before by the same account; a conflict when another
/// account used it; the balance may not pass [`MAX_BALANCE`](crate::MAX_BALANCE).
pub fn plan_keyed_credit<F: PaymentFacts>(
    facts: &mut F,
    account: AccountId,
    amount: u64,
    operation: &'static str,
    key: &str,
) -> Result<KeyedCredit, F::Error> {
    validate_amount(amount, false).map_err(refused::<F>)?;
    if let Some(owner) = facts.ledger_owner(key)? {
        if owner != account {
            return Err(refused::<F>(AccountError::RequestIdConflict(
                key.to_owned(),
            )));
        }
        return Ok(KeyedCredit::AlreadyApplied);
    }
    let balance = facts
        .balance(account)?
        .ok_or_else(|| refused::<F>(AccountError::AccountNotFound(account)))?;
    if balance > max_balance_before_adding(amount) {
        return Err(refused::<F>(balance_too_large()));
    }
    Ok(KeyedCredit::Apply(BalanceChange {
        account,
        amount: to_i64(amount).map_err(refused::<F>)?,
        balance_after: balance + amount,
        operation,
        key: key.to_owned(),
    }))
}

/// Plans what a verified payment event does (the rules in the module's doc).
pub fn plan_event<F: PaymentFacts>(facts: &mut F, event: &PaymentEvent) -> Result<Plan, F::Error> {
    if facts.event_seen(&event.event_id)? {
        return Ok(Plan {
            outcome: PaymentOutcome::Duplicate,
            writes: Vec::new(),
        });
    }
    let (outcome, mut writes) = match &event.kind {
        PaymentEventKind::CheckoutCompleted(checkout)
        | PaymentEventKind::PaymentSucceeded(checkout) => {
            let target = if checkout.paid {
                TopupStatus::Paid
            } else {
                TopupStatus::Pending
            };
            plan_checkout(facts, checkout, target)?
        }
        PaymentEventKind::PaymentFailed(checkout) => {
            plan_checkout(facts, checkout, TopupStatus::Failed)?
        }
        PaymentEventKind::CheckoutExpired(checkout) => {
            plan_checkout(facts, checkout, TopupStatus::Expired)?
        }
        PaymentEventKind::Refunded {
            payment_intent,
            amount_refunded,
            currency,
        } => plan_refund(
            facts,
            &event.event_id,
            payment_intent,
            *amount_refunded,
            currency,
        )?,
    };
    if let PaymentOutcome::NotYet(_) = outcome {
        return Ok(Plan { outcome, writes });
    }
    if let Some((topup_id, kind, detail)) = outcome.activity(event)
        && let Some(topup) = facts.topup(topup_id)?
    {
        writes.push(Write::Activity {
            account: topup.account_id,
            kind,
            detail,
        });
    }
    writes.push(Write::RecordEvent {
        event_id: event.event_id.clone(),
        topup_id: outcome.topup_id(),
        outcome: outcome.to_string(),
    });
    Ok(Plan { outcome, writes })
}

/// An outcome and the writes that carry it out.
type Step = (PaymentOutcome, Vec<Write>);

/// The order a checkout event is about, or why it matches none.
fn order_of<F: PaymentFacts>(
    facts: &mut F,
    checkout: &CheckoutFacts,
) -> Result<Result<Topup, String>, F::Error> {
    let by_reference = facts.topup_by_reference(&checkout.reference)?;
    let id = match (by_reference, checkout.topup_id) {
        (Some(found), Some(named)) if found != named => {
            return Ok(Err(format!(
                "checkout {} belongs to top-up {found}, the event names {named}",
                checkout.reference
            )));
        }
        (Some(id), _) | (None, Some(id)) => id,
        (None, None) => {
            return Ok(Err(format!(
                "no top-up for checkout {}",
                checkout.reference
            )));
        }
    };
    let Some(topup) = facts.topup(id)? else {
        return Ok(Err(format!("no top-up {id}")));
    };
    if let Some(reference) = &topup.reference
        && reference != &checkout.reference
    {
        return Ok(Err(format!(
            "top-up {id} has checkout {reference}, the event names {}",
            checkout.reference
        )));
    }
    Ok(Ok(topup))
}

fn plan_checkout<F: PaymentFacts>(
    facts: &mut F,
    checkout: &CheckoutFacts,
    target: TopupStatus,
) -> Result<Step, F::Error> {
    let topup = match order_of(facts, checkout)? {
        Ok(topup) => topup,
        Err(why) => return Ok((PaymentOutcome::Rejected(why), Vec::new())),
    };
    if topup.status == TopupStatus::Paid {
        // Paid is final: a late failure or expiry, or the same payment told twice, changes nothing.
        let why = format!("top-up {} is already paid", topup.id);
        return Ok((PaymentOutcome::Ignored(why), Vec::new()));
    }
    if target == TopupStatus::Pending && topup.status != TopupStatus::Pending {
        // A completed-but-unpaid checkout told after its failure or expiry.
        let why = format!("top-up {} is already {}", topup.id, topup.status.as_str());
        return Ok((PaymentOutcome::Ignored(why), Vec::new()));
    }
    let set_status = Write::SetStatus {
        topup_id: topup.id,
        status: target,
        payment_intent: checkout.payment_intent.clone(),
        reference: checkout.reference.clone(),
    };
    if target != TopupStatus::Paid {
        let outcome = PaymentOutcome::Updated {
            topup_id: topup.id,
            status: target,
        };
        return Ok((outcome, vec![set_status]));
    }
    if checkout.amount != topup.amount_cents
        || !checkout.currency.eq_ignore_ascii_case(&topup.currency)
    {
        let why = format!(
            "top-up {} costs {} {}, the payment is {} {}",
            topup.id, topup.amount_cents, topup.currency, checkout.amount, checkout.currency
        );
        return Ok((PaymentOutcome::Rejected(why), Vec::new()));
    }
    let key = format!("topup:{}", topup.id);
    let credit = match plan_keyed_credit(
        facts,
        topup.account_id,
        topup.credits,
        TOPUP_OPERATION,
        &key,
    )? {
        KeyedCredit::Apply(change) => change,
        KeyedCredit::AlreadyApplied => {
            let what = format!("top-up {} was credited but not paid", topup.id);
            return Err(refused::<F>(corrupt(what)));
        }
    };
    let outcome = PaymentOutcome::Credited {
        topup_id: topup.id,
        credits: topup.credits,
        balance: credit.balance_after,
    };
    Ok((outcome, vec![set_status, Write::Balance(credit)]))
}

fn plan_refund<F: PaymentFacts>(
    facts: &mut F,
    event_id: &str,
    payment_intent: &str,
    amount_refunded: u64,
    currency: &str,
) -> Result<Step, F::Error> {
    let Some(id) = facts.paid_topup_by_payment(payment_intent)? else {
        let why = format!("no paid top-up for payment {payment_intent} yet");
        return Ok((PaymentOutcome::NotYet(why), Vec::new()));
    };
    let topup = facts
        .topup(id)?
        .ok_or_else(|| refused::<F>(corrupt(format!("top-up {id} vanished"))))?;
    if !currency.eq_ignore_ascii_case(&topup.currency) {
        let why = format!(
            "top-up {id} was paid in {}, the refund is in {currency}",
            topup.currency
        );
        return Ok((PaymentOutcome::Rejected(why), Vec::new()));
    }
    let refunded = amount_refunded.min(topup.amount_cents);
    if refunded <= topup.refunded_cents {
        let why = format!("top-up {id}: refund already applied");
        return Ok((PaymentOutcome::Ignored(why), Vec::new()));
    }
    // The credits owed back: the refunded share of the credits bought, less what earlier
    // refunds took; at most what the account still holds.
    let share = if topup.amount_cents == 0 {
        topup.credits
    } else {
        u64::try_from(
            u128::from(topup.credits) * u128::from(refunded) / u128::from(topup.amount_cents),
        )
        .unwrap_or(topup.credits)
    };
    let owed = share.saturating_sub(topup.refunded_credits);
    let balance = facts
        .balance(topup.account_id)?
        .ok_or_else(|| refused::<F>(corrupt(format!("top-up {id} belongs to no account"))))?;
    let taken = owed.min(balance);
    let mut writes = Vec::new();
    if taken > 0 {
        writes.push(Write::Balance(BalanceChange {
            account: topup.account_id,
            amount: -to_i64(taken).map_err(refused::<F>)?,
            balance_after: balance - taken,
            operation: REFUND_OPERATION,
            key: format!("refund:{event_id}"),
        }));
    }
    writes.push(Write::RecordRefund {
        topup_id: id,
        refunded_cents: refunded,
        credits_taken: taken,
    });
    let outcome = PaymentOutcome::Refunded {
        topup_id: id,
        credits: taken,
    };
    Ok((outcome, writes))
}

fn refused<F: PaymentFacts>(err: AccountError) -> F::Error {
    F::Error::from(DeveloperError::Account(err))
}

#[cfg(test)]
mod tests;

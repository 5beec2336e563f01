//! `subscriptions/listen`: what a subscription asks for (its filter), what
//! the acknowledgement grants, and which subscription a notification
//! belongs to.

use serde::Serialize;
use serde_json::Value;

use super::meta::SUBSCRIPTION_ID;
use crate::protocol::fields::{Fields, deserialize_by_fields};
use crate::protocol::types::ServerCapabilities;
use crate::protocol::{Notification, RequestId, methods};

fn is_false(value: &bool) -> bool {
    !*value
}

/// What a subscription asks for (`SubscriptionFilter` of 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListenFilter {
    /// `notifications/tools/list_changed`.
    #[serde(skip_serializing_if = "is_false")]
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    #[serde(skip_serializing_if = "is_false")]
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    #[serde(skip_serializing_if = "is_false")]
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` for these URIs (and resources
    /// under them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
}

deserialize_by_fields!(ListenFilter);

impl ListenFilter {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = ListenFilter {
            tools_list_changed: fields.flag("toolsListChanged"),
            prompts_list_changed: fields.flag("promptsListChanged"),
            resources_list_changed: fields.flag("resourcesListChanged"),
            resource_subscriptions: fields.strings("resourceSubscriptions").unwrap_or_default(),
        };
        fields.done(value)
    }

    /// As JSON (a `SubscriptionFilter`), the same as its `Serialize`
    /// writes it, built by hand: the wasm needs no serializer for it (see
    /// `protocol::object!`).
    pub(crate) fn to_value(&self) -> Value {
        let mut object = crate::protocol::object! {};
        for (key, on) in [
            ("toolsListChanged", self.tools_list_changed),
            ("promptsListChanged", self.prompts_list_changed),
            ("resourcesListChanged", self.resources_list_changed),
        ] {
            if on {
                object[key] = Value::Bool(true);
            }
        }
        if !self.resource_subscriptions.is_empty() {
            object["resourceSubscriptions"] = Value::from(self.resource_subscriptions.clone());
        }
        object
    }

    /// Every list change: tools, prompts and resources.
    pub fn list_changes() -> Self {
        ListenFilter {
            tools_list_changed: true,
            prompts_list_changed: true,
            resources_list_changed: true,
            resource_subscriptions: Vec::new(),
        }
    }

    /// Updates of one resource.
    pub fn resource(uri: impl Into<String>) -> Self {
        ListenFilter { resource_subscriptions: vec![uri.into()], ..ListenFilter::default() }
    }

    /// Whether it asks for nothing.
    pub fn is_empty(&self) -> bool {
        *self == ListenFilter::default()
    }

    /// The part of this filter the server's capabilities say it can deliver.
    pub fn offered_by(&self, capabilities: &ServerCapabilities) -> ListenFilter {
        ListenFilter {
            tools_list_changed: self.tools_list_changed && capabilities.tools_list_changed(),
            prompts_list_changed: self.prompts_list_changed && capabilities.prompts_list_changed(),
            resources_list_changed: self.resources_list_changed && capabilities.resources_list_changed(),
            resource_subscriptions: if capabilities.resources_subscribe() {
                self.resource_subscriptions.clone()
            } else {
                Vec::new()
            },
        }
    }

    /// Whether a notification is one this filter asks for.
    pub fn wants(&self, notification: &Notification) -> bool {
        match notification.method.as_str() {
            methods::TOOLS_LIST_CHANGED => self.tools_list_changed,
            methods::PROMPTS_LIST_CHANGED => self.prompts_list_changed,
            methods::RESOURCES_LIST_CHANGED => self.resources_list_changed,
            methods::RESOURCES_UPDATED => {
                let uri = notification.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
                uri.is_some_and(|uri| self.resource_subscriptions.iter().any(|s| covers(s, uri)))
            }
            _ => false,
        }
    }
}

/// What an acknowledgement grants (its `notifications`): `None` when it
/// has none, an error when it is unreadable.
pub fn granted_by(acknowledgement: &Notification) -> Option<Result<ListenFilter, String>> {
    let granted = acknowledgement.params.as_ref().and_then(|p| p.get("notifications")).cloned();
    granted.map(|granted| crate::protocol::fields::from_value(granted, "a filter (an object)"))
}

/// The subscription a notification belongs to (`_meta.subscriptionId`).
pub fn subscription_id(notification: &Notification) -> Option<RequestId> {
    notification
        .params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(SUBSCRIPTION_ID))
        .and_then(RequestId::from_value)
}

/// Whether an update of `uri` belongs to a subscription to `subscribed`:
/// the same resource or one under it.
pub fn covers(subscribed: &str, uri: &str) -> bool {
    match uri.strip_prefix(subscribed) {
        Some("") => true,
        Some(rest) => subscribed.ends_with('/') || crate::ascii::starts_with_any(rest, b"/#?"),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn notification(method: &str, params: Value) -> Notification {
        Notification { method: method.into(), params: Some(params) }
    }

    #[test]
    fn the_filter_serializes_only_what_it_asks_for() {
        let filter = ListenFilter { tools_list_changed: true, ..ListenFilter::resource("file:///a") };
        assert_eq!(
            serde_json::to_value(&filter).unwrap(),
            json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]})
        );
        // The hand-built JSON is what `Serialize` writes.
        for filter in [filter, ListenFilter::default(), ListenFilter::list_changes()] {
            assert_eq!(filter.to_value(), serde_json::to_value(&filter).unwrap());
        }
        let granted: ListenFilter = serde_json::from_value(json!({"promptsListChanged": true})).unwrap();
        assert!(granted.prompts_list_changed && !granted.tools_list_changed);
    }

    #[test]
    fn only_what_the_capabilities_offer_is_asked_for() {
        let capabilities: ServerCapabilities =
            serde_json::from_value(json!({"tools": {"listChanged": true}, "resources": {"listChanged": false}}))
                .unwrap();
        let offered = ListenFilter::list_changes().offered_by(&capabilities);
        assert_eq!(offered, ListenFilter { tools_list_changed: true, ..ListenFilter::default() });
        assert!(ListenFilter::resource("x://y").offered_by(&capabilities).is_empty());
    }

    #[test]
    fn resource_updates_match_the_resource_and_what_is_under_it() {
        let filter = ListenFilter::resource("file:///dir");
        let updated = |uri: &str| notification(methods::RESOURCES_UPDATED, json!({"uri": uri}));
        assert!(filter.wants(&updated("file:///dir")));
        assert!(filter.wants(&updated("file:///dir/a.txt")));
        assert!(filter.wants(&updated("file:///dir#part")));
        assert!(!filter.wants(&updated("file:///directory")));
        assert!(!filter.wants(&updated("file:///other")));
        assert!(!filter.wants(&notification(methods::TOOLS_LIST_CHANGED, json!({}))));
        assert!(ListenFilter::resource("file:///dir/").wants(&updated("file:///dir/x")));
    }
}

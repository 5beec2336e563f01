//! The `ServerHandler`: the MCP methods rmcp routes to the demo server.

use super::*;

// `resources/subscribe` and `resources/unsubscribe` are deprecated in rmcp
// (legacy-only), which is exactly why they are here: handshake clients use them.
#[allow(deprecated)]
impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources_subscribe()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new("rmcp-peer", "0.1.0"))
        .with_instructions("mcp-edge's interop peer, built on rmcp 3.11.0")
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // A handshake session: remember it for `tools/list_changed`. Here
        // rather than on `notifications/initialized`, which is handled
        // concurrently with the requests that follow it.
        context.peer.set_peer_info(request.clone());
        lock(&self.shared.sessions).push(context.peer);
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    /// rmcp's HTTP server looks tools up here to check `Mcp-Param-*` headers
    /// against the arguments (SEP-2243); without it that check is skipped.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "add" => {
                let sum = int_argument(&request, "a")? + int_argument(&request, "b")?;
                Ok(text(sum.to_string()))
            }
            "echo" => Ok(text(str_argument(&request, "text")?)),
            "route" => {
                let region = str_argument(&request, "region")?;
                let query = str_argument(&request, "query")?;
                Ok(text(format!("region={region} query={query}")))
            }
            "confirm" => self.confirm(&request, &context).await,
            "slow_compute" => self.slow_compute(&request, &context).await,
            "task_confirm" => self.task_confirm(&request, &context).await,
            "slow_fail" => self.slow_fail(&request, &context).await,
            "bump" => {
                let value = self.shared.counter.fetch_add(1, Ordering::SeqCst) + 1;
                self.publish(Change::ResourceUpdated(COUNTER_URI)).await;
                Ok(text(format!("counter={value}")))
            }
            "grow" => {
                let name = {
                    let mut grown = lock(&self.shared.grown);
                    let name = format!("grown_{}", grown.len() + 1);
                    grown.push(name.clone());
                    name
                };
                self.publish(Change::ToolsChanged).await;
                Ok(text(name))
            }
            other if lock(&self.shared.grown).iter().any(|name| name == other) => Ok(text(other.to_owned())),
            other => Err(ErrorData::invalid_params(format!("unknown tool `{other}`"), None)),
        }
    }

    /// `tasks/get`. rmcp has already checked that the server advertises the
    /// extension and the request declares it (else -32601 / -32021).
    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.shared.tasks.get_task(&request.task_id)?))
    }

    /// `tasks/update`: hands the answers to the task waiting for them.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let keys: Vec<&String> = request.input_responses.keys().collect();
        note(format_args!("tasks/update {} {keys:?}", request.task_id));
        self.shared.tasks.update_task(&request.task_id, request.input_responses)
    }

    /// `tasks/cancel`: cooperative; the task decides how it ends.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        note(format_args!("tasks/cancel {}", request.task_id));
        self.shared.tasks.cancel_task(&request.task_id)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let counter = Resource::new(COUNTER_URI, "counter")
            .with_description("A number that `bump` increments")
            .with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![counter]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != COUNTER_URI {
            return Err(ErrorData::resource_not_found(format!("no resource {}", request.uri), None));
        }
        let value = self.shared.counter.load(Ordering::SeqCst);
        Ok(ReadResourceResult::new(vec![ResourceContents::text(value.to_string(), COUNTER_URI)]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        lock(&self.shared.subscribed).push((context.peer, request.uri));
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // A `Peer` cannot be compared with another, so this forgets every
        // session's subscription to the URI: good enough for a test peer.
        lock(&self.shared.subscribed).retain(|(_, uri)| *uri != request.uri);
        Ok(())
    }

    /// 2026-07-28 `subscriptions/listen`: accept what was asked (rmcp trims
    /// it to what `get_info` advertises) and start buffering changes for it
    /// (see [`Listeners`]).
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut listeners = lock(&self.shared.listeners);
        if listeners.pending.len() >= MAX_PENDING {
            listeners.pending.pop_front();
        }
        listeners.pending.push_back(Vec::new());
        Some(requested.clone())
    }

    /// Registers the stream, replays what changed since it was accepted,
    /// and holds it open until the client cancels it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let key = self.shared.next_listener.fetch_add(1, Ordering::SeqCst);
        let sink = context.sink().clone();
        let missed = {
            let mut listeners = lock(&self.shared.listeners);
            listeners.active.push((key, sink.clone()));
            // Concurrent listens may swap buffers: at worst one hears a
            // change from a moment before it was accepted.
            listeners.pending.pop_front().unwrap_or_default()
        };
        for change in &missed {
            deliver(&sink, change).await;
        }
        context.cancelled().await;
        lock(&self.shared.listeners).active.retain(|(k, _)| *k != key);
        Ok(())
    }
}

//! What the tools do: the tool list, `confirm` in both eras, the tasks
//! extension's tools, and publishing changes to listeners.

use super::*;

impl Demo {
    fn base_tools() -> Vec<Tool> {
        vec![
            Tool::new(
                "add",
                "Adds two integers",
                schema(json!({
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"]
                })),
            ),
            Tool::new(
                "echo",
                "Returns its text",
                schema(json!({
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"]
                })),
            ),
            Tool::new(
                "route",
                "Echoes region and query; region travels in the Mcp-Param-Region header too (2026-07-28 HTTP)",
                schema(json!({
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"},
                        "query": {"type": "string"}
                    },
                    "required": ["region", "query"]
                })),
            ),
            Tool::new(
                "confirm",
                "Asks the user to confirm (elicitation) and reports the answer",
                schema(json!({"type": "object", "properties": {}})),
            ),
            Tool::new(
                "bump",
                "Increments demo://counter and notifies its subscribers",
                schema(json!({"type": "object", "properties": {}})),
            ),
            Tool::new(
                "grow",
                "Adds a tool and notifies tools/list_changed",
                schema(json!({"type": "object", "properties": {}})),
            ),
            Tool::new(
                "slow_compute",
                "Sleeps `seconds`, then answers `done: <label>`; a task when the request declares the tasks extension",
                schema(json!({
                    "type": "object",
                    "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}},
                    "required": ["seconds"]
                })),
            ),
            Tool::new(
                "task_confirm",
                "Like confirm, but as a task that turns input_required (when the request declares the tasks extension)",
                schema(json!({"type": "object", "properties": {}})),
            ),
            Tool::new(
                "slow_fail",
                "Sleeps `seconds` (default 0.2), then fails with a JSON-RPC error; a task ends `failed`",
                schema(json!({
                    "type": "object",
                    "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}}
                })),
            ),
        ]
    }

    pub(super) fn tools(&self) -> Vec<Tool> {
        let mut tools = Self::base_tools();
        for name in lock(&self.shared.grown).iter() {
            tools.push(Tool::new(
                name.clone(),
                "Added by grow; returns its own name",
                schema(json!({"type": "object", "properties": {}})),
            ));
        }
        tools
    }

    pub(super) async fn confirm(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if is_stateless(context) {
            // 2026-07-28 forbids server-to-client requests: ask through an
            // `input_required` result, and read the answer from the retry.
            let Some(responses) = &request.input_responses else {
                let mut requests = InputRequests::new();
                requests
                    .insert(CONFIRM_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(confirm_question()?)));
                return Ok(InputRequiredResult::new(Some(requests), Some(CONFIRM_STATE.to_owned())).into());
            };
            if request.request_state.as_deref() != Some(CONFIRM_STATE) {
                return Err(ErrorData::invalid_params(
                    format!("requestState not echoed: {:?}", request.request_state),
                    None,
                ));
            }
            let answer = responses
                .get(CONFIRM_KEY)
                .ok_or_else(|| ErrorData::invalid_params(format!("no input response `{CONFIRM_KEY}`"), None))?;
            Ok(text(confirm_answer("input_required", answer)))
        } else {
            // The handshake era: an `elicitation/create` request on this session.
            let result: ElicitResult = context
                .peer
                .create_elicitation(confirm_question()?)
                .await
                .map_err(|e| ErrorData::internal_error(format!("elicitation failed: {e}"), None))?;
            let answer = serde_json::to_value(&result).unwrap_or(Value::Null);
            Ok(text(confirm_answer("elicitation/create", &answer)))
        }
    }

    /// Runs `work` as a task: rmcp's `TaskManager` spawns it and the client
    /// gets the seed state (`resultType: "task"`) to poll.
    fn spawn_task(
        &self,
        tool: &str,
        work: impl FnOnce(TaskContext) -> TaskFuture,
    ) -> Result<CallToolResponse, ErrorData> {
        let options = TaskOptions::new().with_poll_interval_ms(TASK_POLL_MS);
        let task = self.shared.tasks.spawn(options, work);
        note(format_args!("task created {} for {tool}", task.task_id));
        Ok(CreateTaskResult::new(task).into())
    }

    /// `slow_compute`: a task that sleeps, stopping early if cancelled.
    pub(super) async fn slow_compute(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let duration = seconds_argument(request, None)?;
        let done = format!("done: {}", label_argument(request, ""));
        if !declares_tasks(context) {
            tokio::time::sleep(duration).await;
            note("slow_compute ran synchronously");
            return Ok(text(done));
        }
        self.spawn_task("slow_compute", move |task| {
            Box::pin(async move {
                tokio::select! {
                    () = task.cancelled() => {
                        note(format_args!("task {} stopped: cancelled", task.task_id()));
                        Err(TaskExit::Cancelled)
                    }
                    () = tokio::time::sleep(duration) => Ok(CallToolResult::success(vec![ContentBlock::text(done)])),
                }
            })
        })
    }

    /// `task_confirm`: `confirm`'s question asked from inside a task, which
    /// reports `input_required` until the client answers with `tasks/update`.
    pub(super) async fn task_confirm(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !declares_tasks(context) {
            note("task_confirm ran synchronously");
            return self.confirm(request, context).await;
        }
        let question = InputRequest::Elicitation(ElicitRequest::new(confirm_question()?));
        self.spawn_task("task_confirm", move |task| {
            Box::pin(async move {
                let answer = task.request_input(CONFIRM_KEY, question).await?;
                let reply = confirm_answer("task input_required", &answer);
                Ok(CallToolResult::success(vec![ContentBlock::text(reply)]))
            })
        })
    }

    /// `slow_fail`: sleeps, then fails (a task settles `failed`).
    pub(super) async fn slow_fail(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let duration = seconds_argument(request, Some(0.2))?;
        let error = slow_fail_error(&label_argument(request, "slow_fail"));
        if !declares_tasks(context) {
            tokio::time::sleep(duration).await;
            note("slow_fail ran synchronously");
            return Err(error);
        }
        self.spawn_task("slow_fail", move |_task| {
            Box::pin(async move {
                tokio::time::sleep(duration).await;
                Err(TaskExit::Error(error))
            })
        })
    }

    /// Tells every interested party about a change: handshake sessions
    /// (subscribed ones, for a resource) and 2026-07-28 listen streams.
    pub(super) async fn publish(&self, change: Change) {
        let sessions: Vec<Peer<RoleServer>> = match change {
            Change::ToolsChanged => lock(&self.shared.sessions).clone(),
            Change::ResourceUpdated(uri) => lock(&self.shared.subscribed)
                .iter()
                .filter(|(_, subscribed)| subscribed == uri)
                .map(|(peer, _)| peer.clone())
                .collect(),
        };
        for peer in sessions {
            // A closed session is pruned below; nothing else to do here.
            let _ = match change {
                Change::ToolsChanged => peer.notify_tool_list_changed().await,
                Change::ResourceUpdated(uri) => {
                    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await
                }
            };
        }
        let sinks = {
            let mut listeners = lock(&self.shared.listeners);
            for missed in listeners.pending.iter_mut() {
                missed.push(change.clone());
            }
            listeners.active.clone()
        };
        for (_, sink) in sinks {
            deliver(&sink, &change).await;
        }
        self.prune();
    }

    /// Forgets sessions whose transport has gone.
    fn prune(&self) {
        lock(&self.shared.sessions).retain(|peer| !peer.is_transport_closed());
        lock(&self.shared.subscribed).retain(|(peer, _)| !peer.is_transport_closed());
    }
}

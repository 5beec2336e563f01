//! Tab completion: commands, tool and prompt names, argument names from
//! the input schema, resource URIs.

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use super::{COMMANDS, SharedCatalog, lock};

/// Tab completion from the catalog.
pub(super) struct ShellHelper {
    pub(super) catalog: SharedCatalog,
}

impl ShellHelper {
    fn candidates(&self, line: &str) -> (usize, Vec<String>) {
        let catalog = lock(&self.catalog);
        let Some((command, rest)) = line.split_once(' ') else {
            return (0, matching(COMMANDS.iter().map(|c| c.to_string()), line));
        };
        let offset = command.len() + 1;
        let names = match command {
            "call" => Some(&catalog.tools),
            "prompt" => Some(&catalog.prompts),
            "read" | "watch" => {
                let start = offset + rest.rfind(' ').map_or(0, |i| i + 1);
                return (start, matching(catalog.resources.iter().cloned(), &line[start..]));
            }
            "help" if !rest.contains(' ') => return (offset, matching(COMMANDS.iter().map(|c| c.to_string()), rest)),
            _ => None,
        };
        let Some(names) = names else { return (line.len(), Vec::new()) };
        let Some((name, json)) = rest.split_once(' ') else {
            return (offset, matching(names.keys().cloned(), rest));
        };
        // Inside the JSON: complete `"argument": ` after `{`, `,` or a quote.
        let Some(arguments) = names.get(name) else { return (line.len(), Vec::new()) };
        let json_start = offset + name.len() + 1;
        let cut = json.rfind(['{', ',', ' ', '"']).map_or(0, |i| i + 1);
        let mut start = json_start + cut;
        if json[..cut].ends_with('"') {
            start -= 1;
        }
        let partial = line[start..].trim_start_matches('"');
        let unused =
            arguments.iter().filter(|a| !json.contains(&format!("\"{a}\""))).filter(|a| a.starts_with(partial));
        let mut out: Vec<String> = unused.map(|a| format!("\"{a}\": ")).collect();
        if json.trim().is_empty() {
            // Nothing typed yet: open the object.
            out = arguments.iter().map(|a| format!("{{\"{a}\": ")).collect();
            start = json_start + (json.len() - json.trim_start().len());
        }
        (start, out)
    }
}

fn matching(names: impl Iterator<Item = String>, prefix: &str) -> Vec<String> {
    names.filter(|n| n.starts_with(prefix)).collect()
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, names) = self.candidates(&line[..pos]);
        let pairs = names
            .into_iter()
            .map(|name| {
                // A lone command or name gets a space after it.
                let replacement = if name.ends_with(' ') || name.starts_with('{') || name.starts_with('"') {
                    name.clone()
                } else {
                    format!("{name} ")
                };
                Pair { display: name, replacement }
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}
impl Highlighter for ShellHelper {}
impl Validator for ShellHelper {}
impl Helper for ShellHelper {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    use crate::shell::Catalog;

    fn helper() -> ShellHelper {
        let mut catalog = Catalog::default();
        catalog.tools.insert("echo".into(), vec!["message".into()]);
        catalog.tools.insert("get-sum".into(), vec!["a".into(), "b".into()]);
        catalog.resources.push("demo://x".into());
        ShellHelper { catalog: Arc::new(Mutex::new(catalog)) }
    }

    #[test]
    fn completes_commands_names_and_arguments() {
        let h = helper();
        assert_eq!(h.candidates("ca"), (0, vec!["call".to_owned()]));
        assert_eq!(h.candidates("call e"), (5, vec!["echo".to_owned()]));
        assert_eq!(h.candidates("call echo "), (10, vec!["{\"message\": ".to_owned()]));
        assert_eq!(h.candidates("call get-sum {\"a\": 1, "), (22, vec!["\"b\": ".to_owned()]));
        assert_eq!(h.candidates("call get-sum {\"a\": 1, \"b"), (22, vec!["\"b\": ".to_owned()]));
        assert_eq!(h.candidates("read de"), (5, vec!["demo://x".to_owned()]));
    }
}

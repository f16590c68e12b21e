//! Errors of scenarios: [`ScenarioError`] is bad input as `file:line:
//! what`, or a run that deadlocked. Lines come from the TOML parser's
//! spans: the error's own span, the span of a key for errors found after
//! parsing (in the file's text, kept in [`ScenarioFile`]), and the
//! field's span for errors the TOML reader places at a table's header.

/// Why a scenario gave no outcome: bad input or configuration
/// (`file:line: what`), or a run that deadlocked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// Bad input or configuration: a file, a field, a trace line, a limit.
    #[error("{}{message}", location(.file, .line))]
    Input {
        /// The file.
        file: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// The simulation ran and deadlocked (ranks blocked, nothing left to
    /// happen): not bad input, so the command line exits with a code of
    /// its own for it.
    #[error("{}{message}", location(.file, &None))]
    Deadlock {
        /// The scenario file.
        file: String,
        /// The diagnosis: the blocked ranks and what each waits for.
        message: String,
    },
}

fn location(file: &str, line: &Option<usize>) -> String {
    match (file.is_empty(), line) {
        (true, _) => String::new(),
        (false, Some(l)) => format!("{file}:{l}: "),
        (false, None) => format!("{file}: "),
    }
}

/// The line of `key` inside table `section` (dotted, `""` for the top
/// level) of `text`, from the TOML parser's spans, for errors found after
/// parsing; the table's own line when the key is absent.
pub(super) fn key_line(text: &str, section: &str, key: &str) -> Option<usize> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    let mut at = None;
    for part in section.split('.').filter(|p| !p.is_empty()) {
        let (k, v) = entry(table, part)?;
        at = Some(k.span().start);
        match v.get_ref() {
            toml::de::DeValue::Table(t) => table = t,
            _ => return at.map(|a| line_of(text, a)),
        }
    }
    let start = entry(table, key).map(|(k, _)| k.span().start).or(at)?;
    Some(line_of(text, start))
}

type Entry<'a, 'i> = (
    &'a toml::Spanned<toml::de::DeString<'i>>,
    &'a toml::Spanned<toml::de::DeValue<'i>>,
);

/// The key `name` of `table` and its value, with their spans.
fn entry<'a, 'i>(table: &'a toml::de::DeTable<'i>, name: &str) -> Option<Entry<'a, 'i>> {
    table.iter().find(|(k, _)| k.get_ref().as_ref() == name)
}

/// The 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The scenario file as read, for errors found after parsing: its name
/// and text (to find the line of a key). A scenario built from
/// command-line options has neither.
#[derive(Clone, Debug, Default)]
pub struct ScenarioFile {
    /// File name for messages (empty: no file).
    pub name: String,
    /// The file's text (empty: no file, or the lines are not those of the
    /// table being read).
    pub text: String,
}

impl ScenarioFile {
    /// An error at `section.key` (the key's line when the text has it).
    pub(super) fn err(
        &self,
        section: &str,
        key: &str,
        message: impl Into<String>,
    ) -> ScenarioError {
        let name = if key.is_empty() {
            section.to_string()
        } else if section.is_empty() {
            key.to_string()
        } else {
            format!("{section}.{key}")
        };
        ScenarioError::Input {
            file: self.name.clone(),
            line: key_line(&self.text, section, key),
            message: format!("`{name}`: {}", message.into()),
        }
    }
    /// An error about the whole scenario (no line).
    pub(super) fn plain(&self, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Input {
            file: self.name.clone(),
            line: None,
            message: message.into(),
        }
    }
}

pub(super) fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> ScenarioError {
    let message = e.message().trim().to_string();
    let line = e
        .span()
        .map(|s| refine_line(text, line_of(text, s.start), &message));
    ScenarioError::Input {
        file: file.into(),
        line,
        message,
    }
}

/// The TOML reader reports errors inside `[workload]` (an internally
/// tagged table, which serde reads through a buffer without spans) at the
/// table's header; point at the field instead, by the parser's spans of
/// that table: the unknown field's key, the key named by its path
/// (`` `machine.dims`: ... ``), or the value quoted in the message.
pub(super) fn refine_line(text: &str, line: usize, message: &str) -> usize {
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return line;
    };
    // The table whose header is on `line`.
    let Some((section, table)) = doc.get_ref().iter().find_map(|(k, v)| match v.get_ref() {
        toml::de::DeValue::Table(t) if line_of(text, k.span().start) == line => {
            Some((k.get_ref().as_ref(), t))
        }
        _ => None,
    }) else {
        return line;
    };
    let key = message
        .strip_prefix("unknown field `")
        .and_then(|r| r.split('`').next())
        .or_else(|| {
            message
                .strip_prefix('`')
                .and_then(|r| r.split('`').next())
                .and_then(|p| p.strip_prefix(section))
                .and_then(|k| k.strip_prefix('.'))
        });
    if let Some((k, _)) = key.and_then(|k| entry(table, k)) {
        return line_of(text, k.span().start);
    }
    // `invalid length 2, expected an array of length 3`: the array of
    // that length.
    let length = message
        .strip_prefix("invalid length ")
        .and_then(|r| r.split(',').next())
        .and_then(|n| n.parse::<usize>().ok());
    if let Some(n) = length {
        let array = table
            .iter()
            .find(|(_, v)| matches!(v.get_ref(), toml::de::DeValue::Array(a) if a.len() == n));
        if let Some((k, _)) = array {
            return line_of(text, k.span().start);
        }
    }
    // A value quoted in the message (`...`), or a number such as -5.
    let needle = message.split('`').nth(1).map(str::to_string).or_else(|| {
        message
            .split_whitespace()
            .find(|w| w.parse::<f64>().is_ok())
            .map(str::to_string)
    });
    let Some(needle) = needle.filter(|n| !n.is_empty()) else {
        return line;
    };
    table
        .iter()
        .find_map(|(_, v)| quoting(text, v, &needle))
        .map_or(line, |at| line_of(text, at))
}

/// The start of the innermost value in `v` (itself, or an element of an
/// array or table in it) whose text contains `needle`.
fn quoting(text: &str, v: &toml::Spanned<toml::de::DeValue<'_>>, needle: &str) -> Option<usize> {
    match v.get_ref() {
        toml::de::DeValue::Array(a) => a.iter().find_map(|e| quoting(text, e, needle)),
        toml::de::DeValue::Table(t) => t.iter().find_map(|(_, e)| quoting(text, e, needle)),
        _ => text
            .get(v.span())
            .is_some_and(|raw| raw.contains(needle))
            .then_some(v.span().start),
    }
}

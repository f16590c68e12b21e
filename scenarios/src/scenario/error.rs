//! Errors of scenario files: [`ScenarioError`] is `file:line: what`; the
//! line of a key is found in the file's text ([`ScenarioFile`]) for errors
//! found after parsing, and moved from a table's header to the field for
//! errors the TOML reader places at the header.

/// A scenario error: where (file and line when known) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", location(.file, .line))]
pub struct ScenarioError {
    /// The file.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// The simulation ran and deadlocked (ranks blocked, nothing left to
    /// happen), as opposed to bad input or configuration: the command
    /// line exits with a code of its own for it.
    pub deadlock: bool,
}

fn location(file: &str, line: &Option<usize>) -> String {
    match (file.is_empty(), line) {
        (true, _) => String::new(),
        (false, Some(l)) => format!("{file}:{l}: "),
        (false, None) => format!("{file}: "),
    }
}

/// The line of `key` inside table `[section]` of `text` (the first
/// `key =` after the section header), for errors found after parsing.
pub(super) fn key_line(text: &str, section: &str, key: &str) -> Option<usize> {
    let mut inside = section.is_empty();
    let mut section_line = None;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.starts_with('[') {
            let name = l.trim_matches(|c| c == '[' || c == ']').trim();
            inside = name == section;
            if inside && section_line.is_none() {
                section_line = Some(i + 1);
            }
            continue;
        }
        if inside {
            if let Some((k, _)) = l.split_once('=') {
                if k.trim() == key {
                    return Some(i + 1);
                }
            }
        }
    }
    section_line
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
        ScenarioError {
            file: self.name.clone(),
            line: key_line(&self.text, section, key),
            message: format!("`{name}`: {}", message.into()),
            deadlock: false,
        }
    }
    /// An error about the whole scenario (no line).
    pub(super) fn plain(&self, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: self.name.clone(),
            line: None,
            message: message.into(),
            deadlock: false,
        }
    }
}

pub(super) fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> ScenarioError {
    let message = e.message().trim().to_string();
    let line = e
        .span()
        .map(|s| {
            let upto = &text.as_bytes()[..s.start.min(text.len())];
            upto.iter().filter(|&&b| b == b'\n').count() + 1
        })
        .map(|l| refine_line(text, l, &message));
    ScenarioError {
        file: file.into(),
        line,
        message,
        deadlock: false,
    }
}

/// The TOML reader reports errors inside `[workload]` (an internally
/// tagged table, read through a buffer) at the table's header; point at
/// the field instead: the line of the unknown field, or the first line of
/// the table that holds the offending value quoted in the message.
pub(super) fn refine_line(text: &str, line: usize, message: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let Some(header) = lines.get(line - 1).map(|l| l.trim()) else {
        return line;
    };
    if !header.starts_with('[') {
        return line;
    }
    let section = header.trim_matches(|c| c == '[' || c == ']').trim();
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let key = rest.split('`').next().unwrap_or("");
        return key_line(text, section, key).unwrap_or(line);
    }
    // A message about a field by its path: "`machine.dims`: ...".
    if let Some(key) = message
        .strip_prefix('`')
        .and_then(|r| r.split('`').next())
        .and_then(|p| p.strip_prefix(section))
        .and_then(|k| k.strip_prefix('.'))
    {
        return key_line(text, section, key).unwrap_or(line);
    }
    // A value named in the message: `...` or a number such as -5.
    let needle = message.split('`').nth(1).map(str::to_string).or_else(|| {
        message
            .split_whitespace()
            .find(|w| w.parse::<f64>().is_ok())
            .map(str::to_string)
    });
    let Some(needle) = needle.filter(|n| !n.is_empty()) else {
        return line;
    };
    for (i, l) in lines.iter().enumerate().skip(line) {
        if l.trim().starts_with('[') {
            break;
        }
        if l.split('#').next().unwrap_or("").contains(&needle) {
            return i + 1;
        }
    }
    line
}

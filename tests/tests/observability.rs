//! deploy/observability: the Grafana dashboard, the Prometheus alert rules and the collector
//! config parse, and every metric they query is one the code exports.

use std::{collections::BTreeSet, path::PathBuf};

use serde::Deserialize;
use serde_json::Value as Json;
use serde_yaml_ng::Value as Yaml;

/// Every Prometheus name Ludus exports through the collector's `prometheus` exporter
/// (dots -> underscores, unit `ms` -> `_milliseconds`, `{annotation}` units dropped,
/// monotonic counters `_total`, histograms `_bucket`/`_sum`/`_count`, up-down counters and
/// gauges as they are). Keep in step with the instruments and deploy/observability/README.md.
const EXPORTED: &[&str] = &[
    // libs/telemetry/src/metrics.rs: `rpc.server.duration`, f64 histogram, ms.
    "rpc_server_duration_milliseconds_bucket",
    "rpc_server_duration_milliseconds_sum",
    "rpc_server_duration_milliseconds_count",
    // services/game-state/src/metrics.rs: `ludus.moves`, `ludus.games.finished`, counters.
    "ludus_moves_total",
    "ludus_games_finished_total",
    // services/timers/src/worker.rs: `ludus.timers.fired` counter, `ludus.timers.lateness`
    // u64 histogram, ms.
    "ludus_timers_fired_total",
    "ludus_timers_lateness_milliseconds_bucket",
    "ludus_timers_lateness_milliseconds_sum",
    "ludus_timers_lateness_milliseconds_count",
    // services/timers/src/backlog.rs: `ludus.timers.armed`, `ludus.timers.due`, gauges.
    "ludus_timers_armed",
    "ludus_timers_due",
    // services/matchmaking/src/lib.rs: `ludus.matchmaking.tickets`, gauge.
    "ludus_matchmaking_tickets",
    // gateway/src/fanout.rs: `ludus.gateway.streams`, up-down counter (a gauge, no `_total`).
    "ludus_gateway_streams",
    // Not ours: Prometheus's own scrape health of the collector.
    "up",
];

/// PromQL words followed by a list of label names (optional for the `group_*` ones).
const LABEL_LISTS: &[&str] = &[
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
];

/// Other PromQL words that look like metric names but are not: aggregations can be written
/// `sum by (x) (...)`, so they are not always followed by `(`.
const KEYWORDS: &[&str] = &[
    "sum",
    "avg",
    "min",
    "max",
    "count",
    "group",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
    "and",
    "or",
    "unless",
    "bool",
    "offset",
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/observability")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn yaml(name: &str) -> Yaml {
    serde_yaml_ng::from_str(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Skips from `open` at `i` to past its matching `close`.
fn skip_group(chars: &[char], mut i: usize, open: char, close: char) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            i = skip_string(chars, i);
            continue;
        }
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return i + 1;
            }
        }
        i += 1;
    }
    i
}

fn skip_string(chars: &[char], mut i: usize) -> usize {
    let quote = chars[i];
    i += 1;
    while i < chars.len() && chars[i] != quote {
        if chars[i] == '\\' {
            i += 1;
        }
        i += 1;
    }
    i + 1
}

/// The metric names a PromQL expression selects: identifiers outside label matchers,
/// strings, ranges and `by (...)`-style label lists, that are neither functions nor keywords.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut names = BTreeSet::new();
    let mut i = 0;
    let mut label_list_next = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' | '`' => i = skip_string(&chars, i),
            '{' => i = skip_group(&chars, i, '{', '}'),
            '[' => i = skip_group(&chars, i, '[', ']'),
            '(' if label_list_next => {
                label_list_next = false;
                i = skip_group(&chars, i, '(', ')');
            }
            c if c.is_ascii_alphabetic() || c == '_' || c == ':' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == ':')
                {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                // A number's exponent (`1e3`) or a duration's unit (`5m`) follows a digit.
                let after_digit = start > 0 && chars[start - 1].is_ascii_digit();
                let mut j = i;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                let is_call = j < chars.len() && chars[j] == '(';
                label_list_next = LABEL_LISTS.contains(&word.as_str());
                if !label_list_next
                    && !KEYWORDS.contains(&word.as_str())
                    && !is_call
                    && !after_digit
                {
                    names.insert(word);
                }
            }
            _ => i += 1,
        }
    }
    names
}

fn assert_exported(origin: &str, expr: &str) {
    let names = metric_names(expr);
    assert!(!names.is_empty(), "{origin}: no metric in {expr}");
    for name in names {
        assert!(
            EXPORTED.contains(&name.as_str()),
            "{origin}: `{name}` is not a metric Ludus exports (expr: {expr})"
        );
    }
}

#[test]
fn the_expression_scanner_finds_metrics_only() {
    let names = metric_names(
        r#"sum by (job, le) (rate(a_total{x=~"b|c", y!="d"}[5m])) / ignoring (z) group_left sum by (job) (b_count) > 1e3 and c offset 5m"#,
    );
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["a_total", "b_count", "c"]
    );
}

#[test]
fn every_dashboard_panel_queries_exported_metrics() {
    let dashboard: Json = serde_json::from_str(&read("grafana-dashboard.json")).unwrap();
    assert!(dashboard["schemaVersion"].as_u64().unwrap() >= 36);
    let variables = dashboard["templating"]["list"].as_array().unwrap();
    assert!(
        variables
            .iter()
            .any(|v| v["type"] == "datasource" && v["query"] == "prometheus"),
        "no Prometheus datasource variable"
    );
    let panels = dashboard["panels"].as_array().unwrap();
    assert!(!panels.is_empty());
    for panel in panels {
        let title = panel["title"].as_str().unwrap();
        assert_eq!(panel["datasource"]["uid"], "${datasource}", "{title}");
        let targets = panel["targets"].as_array().unwrap();
        assert!(!targets.is_empty(), "{title}: no targets");
        for target in targets {
            let expr = target["expr"].as_str().unwrap_or_default();
            assert!(!expr.trim().is_empty(), "{title}: empty expr");
            assert_exported(title, expr);
        }
    }
}

#[test]
fn every_alert_rule_is_complete_and_queries_exported_metrics() {
    let rules = yaml("alerts.yaml");
    let groups = rules["groups"].as_sequence().unwrap();
    assert!(!groups.is_empty());
    let mut count = 0;
    for group in groups {
        assert!(group["name"].as_str().is_some());
        for rule in group["rules"].as_sequence().unwrap() {
            let alert = rule["alert"].as_str().expect("a rule without `alert`");
            let expr = rule["expr"].as_str().unwrap_or_default();
            assert!(!expr.trim().is_empty(), "{alert}: empty expr");
            assert!(rule["for"].as_str().is_some(), "{alert}: no `for`");
            let severity = rule["labels"]["severity"].as_str().unwrap_or_default();
            assert!(
                ["critical", "warning", "info"].contains(&severity),
                "{alert}: severity {severity:?}"
            );
            assert!(
                rule["annotations"]["summary"].as_str().is_some(),
                "{alert}: no summary"
            );
            assert!(
                rule["annotations"]["description"].as_str().is_some(),
                "{alert}: no description"
            );
            assert_exported(alert, expr);
            count += 1;
        }
    }
    assert!(count > 0);
}

#[test]
fn the_collector_pipelines_use_defined_components() {
    let config = yaml("otel-collector.yaml");
    let grpc = config["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"].as_str();
    let http = config["receivers"]["otlp"]["protocols"]["http"]["endpoint"].as_str();
    assert!(grpc.unwrap().ends_with(":4317"));
    assert!(http.unwrap().ends_with(":4318"));
    assert!(
        config["exporters"]["prometheus"]["endpoint"]
            .as_str()
            .is_some()
    );
    let pipelines = config["service"]["pipelines"].as_mapping().unwrap();
    for kind in ["metrics", "traces"] {
        assert!(pipelines.contains_key(kind), "no {kind} pipeline");
    }
    for (name, pipeline) in pipelines {
        let name = name.as_str().unwrap();
        for section in ["receivers", "processors", "exporters"] {
            let used = pipeline[section].as_sequence();
            if section != "processors" {
                assert!(!used.unwrap().is_empty(), "{name}: no {section}");
            }
            for component in used.into_iter().flatten() {
                let component = component.as_str().unwrap();
                assert!(
                    config[section].get(component).is_some(),
                    "{name}: {section} `{component}` is not defined"
                );
            }
        }
    }
    assert_eq!(
        pipelines[&Yaml::from("metrics")]["exporters"][0].as_str(),
        Some("prometheus")
    );
    for extension in config["service"]["extensions"].as_sequence().unwrap() {
        assert!(config["extensions"].get(extension).is_some());
    }
}

#[test]
fn the_dev_overlay_runs_the_collector_and_points_services_at_it() {
    let overlay = yaml("../overlays/dev/kustomization.yaml");
    let resources = overlay["resources"].as_sequence().unwrap();
    assert!(resources.contains(&Yaml::from("../../observability")));
    let patches = serde_yaml_ng::to_string(&overlay["patches"]).unwrap();
    assert!(patches.contains("OTEL_EXPORTER_OTLP_ENDPOINT"));
    assert!(patches.contains("http://otel-collector:4317"));
    let manifests = read("collector.yaml");
    let ports: Vec<u64> = serde_yaml_ng::Deserializer::from_str(&manifests)
        .map(|document| Yaml::deserialize(document).unwrap())
        .filter(|document| document["kind"] == "Service")
        .flat_map(|service| {
            service["spec"]["ports"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|port| port["port"].as_u64().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(ports, [4317, 4318, 8889]);
}

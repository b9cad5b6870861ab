"""Writes the registry metadata every published package shares (one place to change it), lists its
CHANGELOG.md and LICENSE in `files`, and copies the root LICENSE into each package. Run by hand after changing either: python3 scripts/package-metadata.py [pkg ...]"""
import json, shutil, sys
REPO = 'https://github.com/jitterbug-http/jitterbug'
KEYWORDS = {
    'core': ['retry', 'backoff', 'jitter', 'exponential-backoff', 'retry-after', 'retry-budget', 'http'],
    'fetch': ['fetch', 'retry', 'backoff', 'jitter', 'retry-after', 'browser', 'deno', 'bun', 'cloudflare-workers'],
    'ky': ['ky', 'retry', 'backoff', 'jitter', 'retry-after', 'fetch'],
    'axios': ['axios', 'axios-retry', 'retry', 'backoff', 'jitter', 'retry-after'],
    'undici': ['undici', 'fetch', 'retry', 'interceptor', 'dispatcher', 'backoff', 'jitter'],
    'otel': ['opentelemetry', 'retry', 'tracing', 'metrics', 'diagnostics_channel'],
    'simulator': ['retry', 'backoff', 'jitter', 'simulation', 'retry-storm'],
    'redis': ['redis', 'valkey', 'retry', 'rate-limit', 'gcra', 'circuit-breaker', 'retry-budget'],
    'durable-object': ['cloudflare-workers', 'durable-objects', 'retry', 'rate-limit', 'gcra', 'circuit-breaker', 'retry-budget'],
}
for name in sys.argv[1:] or KEYWORDS:
    path = f'packages/{name}/package.json'
    p = json.load(open(path))
    ordered = {}
    for key in ['name', 'version', 'description', 'license', 'keywords', 'homepage', 'bugs', 'repository', 'type', 'sideEffects']:
        if key == 'keywords': ordered[key] = KEYWORDS[name]
        elif key == 'homepage': ordered[key] = f'{REPO}/tree/main/packages/{name}#readme'
        elif key == 'bugs': ordered[key] = {'url': f'{REPO}/issues'}
        elif key == 'repository': ordered[key] = {'type': 'git', 'url': f'git+{REPO}.git', 'directory': f'packages/{name}'}
        elif key in p: ordered[key] = p[key]
    for key, value in p.items():
        if key not in ordered: ordered[key] = value
    ordered['publishConfig'] = {'access': 'public'}
    # npm packs a package's README and LICENSE whatever `files` says, but not its CHANGELOG.md.
    files = ordered.get('files', [])
    ordered['files'] = files + [f for f in ['CHANGELOG.md', 'LICENSE'] if f not in files]
    json.dump(ordered, open(path, 'w'), indent=2)
    open(path, 'a').write('\n')
    shutil.copy('LICENSE', f'packages/{name}/LICENSE')

# Baton in a container: Node LTS (slim), a non-root user, the data dir on a volume.
#   docker compose up -d --build            (compose.yaml beside this file; see docs/deploy.md)
# The agent CLIs are one layer of their own, chosen at build time:
#   docker build --build-arg AGENT_PACKAGES="@google/gemini-cli" -t baton .
#   docker build --build-arg AGENT_PACKAGES="" -t baton .      (none: the bundled demo agent only)

ARG NODE_VERSION=26

# Build: the same tarball `npm pack` makes (its prepack compiles dist/), unpacked into /opt/baton
# beside the lockfile, so the image installs exactly the locked versions of what it needs at run time.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json config.example.yaml README.md LICENSE CHANGELOG.md ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY docs ./docs
RUN npm pack --pack-destination /tmp \
 && mkdir -p /opt/baton \
 && tar -xzf /tmp/baton-agents-*.tgz -C /opt/baton --strip-components=1 \
 && cp package-lock.json /opt/baton/

FROM node:${NODE_VERSION}-bookworm-slim
# git and ssh for the agents' work in workspaces; tini reaps the processes agents leave behind.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git openssh-client tini \
 && rm -rf /var/lib/apt/lists/*
# From the lockfile: only the run-time dependencies (the bundle holds the rest), at the locked versions.
COPY --from=build /opt/baton /opt/baton
RUN cd /opt/baton && npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
 && ln -s /opt/baton/bin/baton.js /usr/local/bin/baton

# Agent CLIs and their ACP adapters (the documented layer: change the list, rebuild).
ARG AGENT_PACKAGES="@anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp @openai/codex @agentclientprotocol/codex-acp @google/gemini-cli"
RUN if [ -n "$AGENT_PACKAGES" ]; then npm install -g --no-audit --no-fund $AGENT_PACKAGES && npm cache clean --force; fi

# Inside the container Baton listens on all interfaces; compose.yaml publishes them on the host's loopback only.
ENV NODE_ENV=production \
    BATON_DATA_DIR=/data \
    BATON_WEB_LISTEN=0.0.0.0:8787 \
    BATON_OPS_LISTEN=0.0.0.0:8788
RUN mkdir -p /data /workspace /home/node/.config/baton && chown -R node:node /data /workspace /home/node/.config
USER node
WORKDIR /workspace
VOLUME ["/data"]
EXPOSE 8787 8788
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8788/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains: running turns get shutdown_grace (30 s by default) before they are cancelled.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--", "baton"]
CMD ["start"]

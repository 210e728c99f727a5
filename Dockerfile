# Baton in a container: Node LTS (slim), a non-root user, the data dir on a volume.
#   docker compose up -d --build            (compose.yaml beside this file; see docs/deploy.md)
# The agent CLIs are one layer of their own, chosen at build time:
#   docker build --build-arg AGENT_PACKAGES="@google/gemini-cli" -t baton .
#   docker build --build-arg AGENT_PACKAGES="" -t baton .      (none: the bundled demo agent only)

ARG NODE_VERSION=26

# Build: the same tarball `npm pack` makes (its prepack compiles dist/).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json config.example.yaml README.md ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY docs ./docs
RUN npm pack --pack-destination /tmp && mv /tmp/baton-agents-*.tgz /tmp/baton.tgz

FROM node:${NODE_VERSION}-bookworm-slim
# git and ssh for the agents' work in workspaces; tini reaps the processes agents leave behind.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git openssh-client tini \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /tmp/baton.tgz /tmp/baton.tgz
RUN npm install -g --no-audit --no-fund /tmp/baton.tgz && rm /tmp/baton.tgz && npm cache clean --force

# Agent CLIs and their ACP adapters (the documented layer: change the list, rebuild).
ARG AGENT_PACKAGES="@anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp @openai/codex @agentclientprotocol/codex-acp @google/gemini-cli"
RUN if [ -n "$AGENT_PACKAGES" ]; then npm install -g --no-audit --no-fund $AGENT_PACKAGES && npm cache clean --force; fi

# Inside the container Baton listens on all interfaces; compose.yaml publishes them on the host's loopback only.
ENV NODE_ENV=production \
    BATON_DATA_DIR=/data \
    BATON_WEB_LISTEN=0.0.0.0:8787 \
    BATON_OPS_LISTEN=0.0.0.0:8788
RUN mkdir -p /data /workspace && chown node:node /data /workspace
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

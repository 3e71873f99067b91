# The wsmigrate worker for the production-shaped stack in docker-compose.yml.
# Node 24: the current LTS (Node 20 left support in April 2026); the tests run on it too (make test).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY data ./data
RUN npx tsc -p tsconfig.build.json && node dist/worker/write-workflow-bundle.js && npm prune --omit=dev

FROM node:24-bookworm-slim
# Terraform is only needed for the `import` strategy; the default `rename` strategy is offline JSON.
ARG TERRAFORM_VERSION=1.8.5
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/data ./data
COPY package.json ./
RUN useradd --system --uid 10001 --home /var/lib/wsmigrate wsmigrate && mkdir -p /var/lib/wsmigrate/blobs && chown -R wsmigrate /var/lib/wsmigrate
USER wsmigrate
# In a container the metrics/health port must listen beyond loopback, or the published port reaches nothing.
# Two malloc arenas, not eight per core: the worker's threads (Node, V8, Temporal core) otherwise keep
# fragmented arenas resident; measured by bench/fleet together with NODE_OPTIONS (deploy/kubernetes).
ENV WSMIGRATE_BLOB_DIR=/var/lib/wsmigrate/blobs WSMIGRATE_METRICS_HOST=0.0.0.0 NODE_ENV=production MALLOC_ARENA_MAX=2
EXPOSE 9464
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["worker"]

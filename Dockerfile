# syntax=docker/dockerfile:1
# A small, non-root image of the agentgw binary:
#   docker build -t agentgw .
#   docker run -p 18080:18080 agentgw
# Paused runs and plan state are in the SQLite file /data/agentgw.db; keep it
# across containers with a volume: docker run -v agentgw-data:/data ...
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/agentgw ./cmd/agentgw
# The data directory, made here: the runtime image has no shell.
RUN mkdir -p /out/data

# distroless/static: CA certificates and tzdata, no shell, runs as uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/agentgw /usr/local/bin/agentgw
# The data directory (the store agentgw.db), owned by the non-root user.
COPY --from=build --chown=nonroot:nonroot --chmod=0700 /out/data /data
ENV AGENTGW_DATA=/data
# A container is reached through its published port, so it listens on every
# interface (without AGENTGW_ADDR the gateway listens on loopback only unless
# inbound auth is configured). Without AGENTGW_TOKENS the gateway warns
# at start, and its object APIs and /metrics refuse peers not on loopback.
ENV AGENTGW_ADDR=:18080
VOLUME /data
USER nonroot:nonroot
EXPOSE 18080
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 CMD ["agentgw", "healthcheck"]
ENTRYPOINT ["agentgw"]
CMD ["serve"]

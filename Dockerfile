# syntax=docker/dockerfile:1
# A small, non-root image of the agentgw binary:
#   docker build -t agentgw .
#   docker run -p 18080:18080 agentgw
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/agentgw ./cmd/agentgw

# distroless/static: CA certificates and tzdata, no shell, runs as uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/agentgw /usr/local/bin/agentgw
USER nonroot:nonroot
EXPOSE 18080
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 CMD ["agentgw", "healthcheck"]
ENTRYPOINT ["agentgw"]
CMD ["serve"]

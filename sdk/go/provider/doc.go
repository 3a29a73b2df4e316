// Manages Metal dedicated servers, Lite and Lite Pro VPS of the service. Every create or upgrade places a paid order.
package provider
